/* Lane UUIDs: RFC 4122 version 5 (name-based, SHA-1) in the URL namespace,
 * over "vsweep:ROAD:LANE". A name-based UUID is the same in every variant,
 * run and machine, and any uuid5 implementation reproduces it (Python:
 * uuid.uuid5(uuid.NAMESPACE_URL, "vsweep:ring:-1")). SHA-1 is used as
 * RFC 4122 prescribes, not for security. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "map/map_internal.h"

/* 6ba7b811-9dad-11d1-80b4-00c04fd430c8, RFC 4122 appendix C */
static const uint8_t ns_url[16] = {0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad,
                                   0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0,
                                   0x4f, 0xd4, 0x30, 0xc8};

typedef struct sha1 {
	uint32_t h[5];
	uint8_t block[64];
	size_t used;     /* bytes in block */
	uint64_t total;  /* bytes hashed */
} sha1;

static uint32_t rol(uint32_t x, int n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(sha1 *c, const uint8_t *p)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = c->h[0], b = c->h[1], d = c->h[3], e = c->h[4];
	uint32_t cc = c->h[2];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & cc) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ cc ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & cc) | (b & d) | (cc & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ cc ^ d;
			k = 0xca62c1d6;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = cc;
		cc = rol(b, 30);
		b = a;
		a = t;
	}
	c->h[0] += a;
	c->h[1] += b;
	c->h[2] += cc;
	c->h[3] += d;
	c->h[4] += e;
}

static void sha1_add(sha1 *c, const void *data, size_t n)
{
	const uint8_t *p = data;
	c->total += n;
	while (n) {
		size_t k = 64 - c->used < n ? 64 - c->used : n;
		memcpy(c->block + c->used, p, k);
		c->used += k;
		p += k;
		n -= k;
		if (c->used == 64) {
			sha1_block(c, c->block);
			c->used = 0;
		}
	}
}

static void sha1_digest(sha1 *c, uint8_t out[20])
{
	uint64_t bits = c->total * 8;
	uint8_t pad = 0x80, zero = 0;
	sha1_add(c, &pad, 1);
	while (c->used != 56)
		sha1_add(c, &zero, 1);
	uint8_t len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_add(c, len, 8);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(c->h[i] >> (24 - 8 * j));
}

void map_uuid5(const char *name, char out[VS_MAP_UUID_LEN + 1])
{
	sha1 c = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0},
	          {0}, 0, 0};
	sha1_add(&c, ns_url, sizeof ns_url);
	sha1_add(&c, name, strlen(name));
	uint8_t d[20];
	sha1_digest(&c, d);
	d[6] = (uint8_t)((d[6] & 0x0f) | 0x50); /* version 5 */
	d[8] = (uint8_t)((d[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	char *o = out;
	*o++ = '{';
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		o += sprintf(o, "%02x", d[i]);
	}
	*o++ = '}';
	*o = 0;
}
