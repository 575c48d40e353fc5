/* Runs the shared test vectors against the C core: one command per input line, one answer
 * line per command. tests/clock/test_c_core.py feeds it tests/clock/vectors.json and
 * compares every answer with what the Python reference (firmware_bridge/) produced.
 *
 *   crc HEX                 -> crc XXXX
 *   cobs HEX                -> hex of COBS(data)
 *   uncobs HEX              -> hex | err
 *   frame VER TYPE SEQ HEX  -> hex of the wire frame (with the 0x00 delimiter)
 *   decode HEX              -> ok VER TYPE SEQ HEX | err cobs|crc|length
 *   reader HEX              -> frames N <type:seq:hex ...> errors COBS CRC LENGTH
 *   init CAPACITY BOOT_ID   -> ok            (a fresh device at t=0, 15 min sudden death)
 *   rx T HEX | press T SIDE | pause T | poll T -> tx HEX   (bytes the device sent; '-' if none)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xq_device.h"
#include "xq_proto.h"

static uint8_t txbuf[65536];
static uint32_t txlen;

static void tx(void *ctx, const uint8_t *data, uint16_t n)
{
    (void)ctx;
    if (txlen + n <= sizeof txbuf) {
        memcpy(txbuf + txlen, data, n);
        txlen += n;
    }
}

static int unhex(const char *s, uint8_t *out, int cap)
{
    int n = 0;
    if (strcmp(s, "-") == 0)
        return 0;
    while (s[0] && s[1] && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            return -1;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

static void puthex(const uint8_t *d, uint32_t n)
{
    uint32_t i;
    if (!n)
        putchar('-');
    for (i = 0; i < n; i++)
        printf("%02x", d[i]);
}

static char line[1 << 17];
static uint8_t buf[1 << 16], out[1 << 17];
static xq_device dev;

int main(void)
{
    while (fgets(line, sizeof line, stdin)) {
        char op[16], arg[1 << 17];
        unsigned long t = 0, a = 0, b = 0, c = 0;
        int n;
        line[strcspn(line, "\r\n")] = 0;
        if (sscanf(line, "%15s", op) != 1)
            continue;
        arg[0] = 0;
        if (strcmp(op, "crc") == 0 || strcmp(op, "cobs") == 0 || strcmp(op, "uncobs") == 0 ||
            strcmp(op, "decode") == 0 || strcmp(op, "reader") == 0) {
            sscanf(line, "%*s %131071s", arg);
            n = unhex(arg, buf, sizeof buf);
            if (n < 0) {
                printf("bad-input\n");
                continue;
            }
            if (op[0] == 'c' && op[1] == 'r') {
                printf("crc %04x\n", xq_crc16(buf, (uint16_t)n, 0xFFFF));
            } else if (strcmp(op, "cobs") == 0) {
                uint16_t m = xq_cobs_encode(buf, (uint16_t)n, out);
                puthex(out, m);
                putchar('\n');
            } else if (strcmp(op, "uncobs") == 0) {
                int m = xq_cobs_decode(buf, (uint16_t)n, out, sizeof out > 65535 ? 65535 : sizeof out);
                if (m < 0)
                    printf("err\n");
                else {
                    puthex(out, (uint32_t)m);
                    putchar('\n');
                }
            } else if (strcmp(op, "decode") == 0) {
                xq_frame f;
                int rc = xq_frame_decode(buf, (uint16_t)n, &f);
                if (rc == XQ_ERR_NONE) {
                    printf("ok %u %u %lu ", f.version, f.type, (unsigned long)f.seq);
                    puthex(f.payload, f.len);
                    putchar('\n');
                } else
                    printf("err %s\n", rc == XQ_ERR_COBS ? "cobs" : rc == XQ_ERR_CRC ? "crc" : "length");
            } else {
                xq_reader r;
                xq_frame f;
                int i, count = 0;
                xq_reader_init(&r);
                printf("frames");
                for (i = 0; i < n; i++) {
                    if (xq_reader_push(&r, buf[i], &f)) {
                        count++;
                        printf(" %u:%u:%lu:", f.version, f.type, (unsigned long)f.seq);
                        puthex(f.payload, f.len);
                    }
                }
                printf(" errors %u %u %u\n", r.err_cobs, r.err_crc, r.err_length);
            }
        } else if (strcmp(op, "frame") == 0) {
            xq_frame f;
            if (sscanf(line, "%*s %lu %lu %lu %131071s", &a, &b, &c, arg) != 4) {
                printf("bad-input\n");
                continue;
            }
            n = unhex(arg, buf, XQ_MAX_PAYLOAD);
            f.version = (uint8_t)a;
            f.type = (uint8_t)b;
            f.seq = (uint32_t)c;
            f.len = (uint8_t)(n < 0 ? 0 : n);
            memcpy(f.payload, buf, f.len);
            n = xq_frame_encode(&f, out);
            puthex(out, (uint32_t)n);
            putchar('\n');
        } else if (strcmp(op, "init") == 0) {
            if (sscanf(line, "%*s %lu %lu", &a, &b) != 2) {
                printf("bad-input\n");
                continue;
            }
            xq_device_init(&dev, 0, (uint32_t)b, (uint16_t)a, NULL, NULL, tx, NULL);
            printf("ok\n");
        } else {
            txlen = 0;
            if (strcmp(op, "rx") == 0 && sscanf(line, "%*s %lu %131071s", &t, arg) == 2) {
                n = unhex(arg, buf, sizeof buf);
                xq_device_receive(&dev, buf, (uint16_t)(n < 0 ? 0 : n), (uint32_t)t);
            } else if (strcmp(op, "press") == 0 && sscanf(line, "%*s %lu %lu", &t, &a) == 2) {
                xq_device_press(&dev, (uint8_t)a, (uint32_t)t);
            } else if (strcmp(op, "pause") == 0 && sscanf(line, "%*s %lu", &t) == 1) {
                xq_device_pause_button(&dev, (uint32_t)t);
            } else if (strcmp(op, "poll") == 0 && sscanf(line, "%*s %lu", &t) == 1) {
                xq_device_poll(&dev, (uint32_t)t);
            } else {
                printf("bad-input\n");
                continue;
            }
            printf("tx ");
            puthex(txbuf, txlen);
            putchar('\n');
        }
        fflush(stdout);
    }
    return 0;
}
