/*
 * arch/arm-libgcc.c: 64-bit integer to double conversions for the arm ABI
 * on the VFP. libgcc implements __aeabi_ul2d/__aeabi_l2d in its soft-float
 * object, which drags in ~1.3 KiB of soft-float addition into every
 * binary; these use two exact 32-bit conversions and one rounding
 * (correctly rounded, like libgcc's). Run-time ABI helpers use the base
 * (soft-float) calling convention even in a hard-float program: the double
 * comes back in r0:r1, hence pcs("aapcs").
 */
#include "rt.h"

#define RT_AEABI __attribute__((pcs("aapcs")))
RT_AEABI double __aeabi_ul2d(uint64_t v);
RT_AEABI double __aeabi_l2d(int64_t v);

RT_AEABI double __aeabi_ul2d(uint64_t v)
{
	return (double)(uint32_t)(v >> 32) * 4294967296.0 + (double)(uint32_t)v;
}

RT_AEABI double __aeabi_l2d(int64_t v)
{
	return v < 0 ? -__aeabi_ul2d(0 - (uint64_t)v) : __aeabi_ul2d((uint64_t)v);
}
