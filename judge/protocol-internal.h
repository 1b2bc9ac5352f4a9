/*
 * protocol-internal.h: what the two files of the protocol decoder share
 * (protocol.h is its contract): protocol-record.c, the record format's
 * names, number parsers, encoder and lookups; protocol.c, the decoder.
 */
#ifndef BOOTRIG_PROTOCOL_INTERNAL_H
#define BOOTRIG_PROTOCOL_INTERNAL_H

#include "protocol.h"

#include <stdbool.h>
#include <stddef.h>

/* An ASCII decimal digit (not locale-dependent, unlike isdigit()). */
static inline bool proto_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The kind of the word w of length n (PROTO_KIND_UNKNOWN if none). */
enum proto_kind proto_kind_from_word(const char *w, size_t n);

#endif
