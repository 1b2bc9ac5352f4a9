/*
 * pngblobs.c: the blobs of one exact colour in a PNG, for tests that check
 * a headless browser's screenshot by its pixels (t-compare's charts).
 *
 *   pngblobs FILE RRGGBB [MIN_PIXELS [TOLERANCE]]
 *
 * Decodes FILE (8-bit RGB or RGBA, not interlaced: what Chromium writes;
 * anything else is an error, exit 65), finds the 4-connected components
 * of pixels whose RGB is RRGGBB (alpha ignored; with TOLERANCE, each
 * channel within that much: anti-aliased diagonals), and prints one
 * line per component of at least MIN_PIXELS (default 1) pixels, in order
 * of their first pixel (top to bottom, left to right):
 *   X0 Y0 X1 Y1 PIXELS      (the bounding box, inclusive)
 * Exit 0, 64 for bad usage, 65 for a file that is not such a PNG.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static _Noreturn void bad(const char *why)
{
	fprintf(stderr, "pngblobs: %s\n", why);
	exit(65);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The whole file, malloc'd, its length in *len. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		bad("cannot open the file");
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, got;
	do {
		if (n == cap && !(buf = realloc(buf, cap = cap ? cap * 2 : 65536)))
			bad("out of memory");
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* Paeth predictor (PNG spec 9.4). */
static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
	if (argc < 3 || strlen(argv[2]) != 6) {
		fprintf(stderr, "usage: pngblobs FILE RRGGBB [MIN_PIXELS [TOLERANCE]]\n");
		return 64;
	}
	unsigned long rgb = strtoul(argv[2], NULL, 16);
	long min = argc > 3 ? atol(argv[3]) : 1;
	int tol = argc > 4 ? atoi(argv[4]) : 0;
	size_t len;
	unsigned char *png = slurp(argv[1], &len);
	if (len < 33 || memcmp(png, "\x89PNG\r\n\x1a\n", 8))
		bad("not a PNG");
	uint32_t w = 0, h = 0;
	int bpp = 0;
	unsigned char *idat = NULL;
	size_t nidat = 0;
	for (size_t off = 8; off + 12 <= len;) {
		uint32_t clen = be32(png + off);
		const unsigned char *type = png + off + 4, *data = png + off + 8;
		if (clen > len - off - 12)
			bad("truncated chunk");
		if (!memcmp(type, "IHDR", 4)) {
			w = be32(data), h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
				bad("not 8-bit RGB/RGBA without interlace");
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			if (!(idat = realloc(idat, nidat + clen)))
				bad("out of memory");
			memcpy(idat + nidat, data, clen);
			nidat += clen;
		} else if (!memcmp(type, "IEND", 4))
			break;
		off += 12 + clen;
	}
	if (!bpp || !w || !h || w > 20000 || h > 20000)
		bad("no usable IHDR");
	size_t stride = (size_t)w * bpp, rawlen = (stride + 1) * h;
	unsigned char *raw = malloc(rawlen), *img = malloc(stride * h);
	uLongf got = rawlen;
	if (!raw || !img || uncompress(raw, &got, idat, nidat) != Z_OK || got != rawlen)
		bad("bad image data");
	for (uint32_t y = 0; y < h; y++) {
		const unsigned char *in = raw + y * (stride + 1) + 1;
		unsigned char *row = img + y * stride, *up = y ? row - stride : NULL;
		for (size_t i = 0; i < stride; i++) {
			int a = i >= (size_t)bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= (size_t)bpp ? up[i - bpp] : 0, p;
			switch (in[-1]) {
			case 0: p = 0; break;
			case 1: p = a; break;
			case 2: p = b; break;
			case 3: p = (a + b) / 2; break;
			case 4: p = paeth(a, b, c); break;
			default: bad("bad filter type");
			}
			row[i] = (unsigned char)(in[i] + p);
		}
	}
	/* components by an explicit stack; a pixel is marked when pushed */
	uint8_t *seen = calloc((size_t)w * h, 1);
	uint32_t *stack = malloc((size_t)w * h * sizeof(*stack));
	if (!seen || !stack)
		bad("out of memory");
#define NEAR(i, c, shift) (abs((int)img[(size_t)(i) * bpp + (c)] - (int)((rgb >> (shift)) & 255)) <= tol)
#define MATCH(i) (!seen[i] && NEAR(i, 0, 16) && NEAR(i, 1, 8) && NEAR(i, 2, 0))
	for (uint32_t start = 0; start < w * h; start++) {
		if (!MATCH(start))
			continue;
		size_t sp = 0;
		long count = 0;
		uint32_t x0 = w, y0 = h, x1 = 0, y1 = 0;
		seen[start] = 1, stack[sp++] = start;
		while (sp) {
			uint32_t i = stack[--sp], x = i % w, y = i / w;
			count++;
			x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1, y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
			uint32_t nb[4] = { x ? i - 1 : i, x + 1 < w ? i + 1 : i, y ? i - w : i, y + 1 < h ? i + w : i };
			for (int k = 0; k < 4; k++)
				if (nb[k] != i && MATCH(nb[k]))
					seen[nb[k]] = 1, stack[sp++] = nb[k];
		}
		if (count >= min)
			printf("%u %u %u %u %ld\n", x0, y0, x1, y1, count);
	}
	free(seen), free(stack), free(raw), free(img), free(idat), free(png);
	return 0;
}
