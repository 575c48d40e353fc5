/* Clock protocol codec; see xq_proto.h. Table-free CRC keeps flash small on the MCU. */
#include "xq_proto.h"

#include <string.h>

uint16_t xq_crc16(const uint8_t *data, uint16_t n, uint16_t crc)
{
    uint16_t i;
    uint8_t b;
    for (i = 0; i < n; i++) {
        crc ^= (uint16_t)data[i] << 8;
        for (b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    }
    return crc;
}

uint16_t xq_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out)
{
    uint16_t code_index = 0, o = 1, i;
    uint8_t code = 1;
    for (i = 0; i < n; i++) {
        if (in[i] == 0) {
            out[code_index] = code;
            code_index = o++;
            code = 1;
            continue;
        }
        out[o++] = in[i];
        code++;
        if (code == 0xFF && i + 1 < n) { /* a full block at the very end needs no new block */
            out[code_index] = code;
            code_index = o++;
            code = 1;
        }
    }
    out[code_index] = code;
    return o;
}

int xq_cobs_decode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap)
{
    uint16_t i = 0, o = 0, end, j;
    while (i < n) {
        uint8_t code = in[i];
        if (code == 0)
            return XQ_ERR_COBS;
        end = (uint16_t)(i + code);
        if (end > n)
            return XQ_ERR_COBS;
        for (j = (uint16_t)(i + 1); j < end; j++) {
            if (in[j] == 0)
                return XQ_ERR_COBS;
            if (o >= cap)
                return XQ_ERR_LENGTH;
            out[o++] = in[j];
        }
        i = end;
        if (code != 0xFF && i < n) {
            if (o >= cap)
                return XQ_ERR_LENGTH;
            out[o++] = 0;
        }
    }
    return (int)o;
}

void xq_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void xq_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

uint16_t xq_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | ((uint16_t)p[1] << 8)); }

uint32_t xq_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

uint16_t xq_frame_encode(const xq_frame *f, uint8_t *out)
{
    uint8_t raw[XQ_MAX_RAW];
    uint16_t n = (uint16_t)(XQ_HEADER_LEN + f->len), crc, len;
    raw[0] = f->version;
    raw[1] = f->type;
    xq_put_u32(raw + 2, f->seq);
    memcpy(raw + XQ_HEADER_LEN, f->payload, f->len);
    crc = xq_crc16(raw, n, 0xFFFF);
    xq_put_u16(raw + n, crc);
    len = xq_cobs_encode(raw, (uint16_t)(n + XQ_CRC_LEN), out);
    out[len++] = 0;
    return len;
}

int xq_frame_decode(const uint8_t *enc, uint16_t n, xq_frame *f)
{
    uint8_t raw[XQ_MAX_ENCODED];
    int len;
    uint16_t body;
    if (n > XQ_MAX_ENCODED)
        return XQ_ERR_LENGTH;
    len = xq_cobs_decode(enc, n, raw, sizeof raw);
    if (len < 0)
        return len;
    if (len < XQ_HEADER_LEN + XQ_CRC_LEN || len > XQ_MAX_RAW)
        return XQ_ERR_LENGTH;
    body = (uint16_t)(len - XQ_CRC_LEN);
    if (xq_get_u16(raw + body) != xq_crc16(raw, body, 0xFFFF))
        return XQ_ERR_CRC;
    f->version = raw[0];
    f->type = raw[1];
    f->seq = xq_get_u32(raw + 2);
    f->len = (uint8_t)(body - XQ_HEADER_LEN);
    memcpy(f->payload, raw + XQ_HEADER_LEN, f->len);
    return XQ_ERR_NONE;
}

void xq_reader_init(xq_reader *r) { memset(r, 0, sizeof *r); }

int xq_reader_push(xq_reader *r, uint8_t byte, xq_frame *out)
{
    int rc;
    if (byte != 0) {
        if (r->overflow)
            return 0;
        if (r->len >= XQ_MAX_ENCODED) {
            r->overflow = 1;
            r->len = 0;
            return 0;
        }
        r->buf[r->len++] = byte;
        return 0;
    }
    if (r->overflow) {
        r->overflow = 0;
        r->len = 0;
        r->err_length++;
        return 0;
    }
    if (r->len == 0)
        return 0;
    rc = xq_frame_decode(r->buf, r->len, out);
    r->len = 0;
    if (rc == XQ_ERR_NONE) {
        r->frames_ok++;
        return 1;
    }
    if (rc == XQ_ERR_COBS)
        r->err_cobs++;
    else if (rc == XQ_ERR_CRC)
        r->err_crc++;
    else
        r->err_length++;
    return 0;
}

/* Strict UTF-8 (no overlongs, no surrogates, at most U+10FFFF), as Python's decoder. */
int xq_valid_utf8(const uint8_t *s, uint16_t n)
{
    uint16_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        uint8_t k, j, lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            k = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            k = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else
            return 0;
        if ((uint32_t)i + k >= n) /* truncated sequence */
            return 0;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (j = 2; j <= k; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xBF)
                return 0;
        i = (uint16_t)(i + k + 1);
    }
    return 1;
}
