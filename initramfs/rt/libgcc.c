/*
 * libgcc.c: the few compiler helpers an ABI may lack at link time. The
 * i386 and x32 toolchains here have no 32-bit libgcc, so 64-bit division
 * and double <-> 64-bit conversions come from this file (the build adds it
 * for the ABIs that need it; the others link the toolchain's libgcc).
 * Plain shift-and-subtract: correct and small, not fast.
 */
#include "rt.h"

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);
uint64_t __fixunsdfdi(double v);

/* Unsigned n / d, remainder in *rem; d == 0 gives 0 (never trapped). */
uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	if (d == 0) {
		*rem = 0;
		return 0;
	}
	for (int i = 63; i >= 0; i--) {
		r = (r << 1) | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= (uint64_t)1 << i;
		}
	}
	*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	return __udivmoddi4(n, d, &r);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;

	__udivmoddi4(n, d, &r);
	return r;
}

int64_t __divdi3(int64_t n, int64_t d)
{
	uint64_t r, q = __udivmoddi4(n < 0 ? -(uint64_t)n : (uint64_t)n,
					d < 0 ? -(uint64_t)d : (uint64_t)d, &r);

	return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
	uint64_t r;

	__udivmoddi4(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
	return n < 0 ? -(int64_t)r : (int64_t)r;
}

/* double -> uint64, for values the signed conversion cannot hold. */
uint64_t __fixunsdfdi(double v)
{
	if (v <= 0)
		return 0;
	if (v < 9223372036854775808.0)
		return (uint64_t)(int64_t)v;
	return (uint64_t)(int64_t)(v - 9223372036854775808.0) + ((uint64_t)1 << 63);
}
