/*
 * fuzz_chart.c: libFuzzer target for the chart's axis (compare/chart.h).
 * Input: doubles (8 bytes each, any bit pattern: NaN, infinities, 1e308,
 * values a few ulps apart), split into up to 4 groups, a reference line
 * and a threshold (none, 5 %, 1e300 %) by the first byte. Invariants: chart_axis() gives lo < hi, both finite;
 * chart_ticks() at most CHART_MAX_TICKS rising values within [lo, hi]; and
 * chart_svg() ends (the tick loop is bounded) writing one <svg> element.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t nv = (size - 1) / sizeof(double);
	if (nv > 256)
		nv = 256;
	double *v = calloc(nv ? nv : 1, sizeof(double));
	memcpy(v, data + 1, nv * sizeof(double));
	size_t ngroups = 1 + (data[0] & 3), per = nv / ngroups;
	struct chart_group g[4];
	for (size_t i = 0; i < ngroups; i++)
		g[i] = (struct chart_group){ .label = "g", .values = v + i * per,
					     .n = i + 1 == ngroups ? nv - i * per : per };
	struct chart_line line = { .value = nv ? v[0] : NAN, .label = "line" };
	struct chart_spec spec = { .title = "t", .unit = "us", .groups = g, .ngroups = ngroups,
				   .lines = &line, .nlines = (data[0] & 4) ? 1 : 0,
				   .threshold_pct = (data[0] & 8) ? 5 : (data[0] & 16) ? 1e300 : 0 };
	double lo, hi, t[CHART_MAX_TICKS];
	int decimals;
	chart_axis(&spec, &lo, &hi);
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
		abort();
	size_t n = chart_ticks(lo, hi, t, &decimals);
	if (n > CHART_MAX_TICKS || decimals < 0 || decimals > 6)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!(t[i] >= lo - (hi - lo) * 1e-6) || !(t[i] <= hi + (hi - lo) * 1e-6) ||
		    (i && !(t[i] > t[i - 1])))
			abort();
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out)
		abort();
	chart_svg(&spec, out);
	fclose(out);
	if (!strstr(buf, "<svg") || !strstr(buf, "</svg>"))
		abort();
	free(buf);
	free(v);
	return 0;
}
