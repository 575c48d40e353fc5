/* Clock protocol codec: CRC-16/CCITT-FALSE, COBS, frames. Portable C99, no allocation.
 *
 * Mirrors firmware_bridge/codec.py byte for byte; docs/clock-protocol.md is the spec and
 * tests/clock/vectors.json holds the vectors both implementations are checked against.
 * raw frame = version:u8 | type:u8 | seq:u32le | payload | crc16:u16le, sent as COBS(raw) 0x00.
 */
#ifndef XQ_PROTO_H
#define XQ_PROTO_H

#include <stdint.h>

#define XQ_PROTO_VERSION 1
#define XQ_MIN_PROTO_VERSION 1
#define XQ_HEADER_LEN 6
#define XQ_CRC_LEN 2
#define XQ_MAX_PAYLOAD 40
#define XQ_MAX_RAW (XQ_HEADER_LEN + XQ_MAX_PAYLOAD + XQ_CRC_LEN)
#define XQ_MAX_ENCODED (XQ_MAX_RAW + 2)
#define XQ_MAX_TEXT 32
#define XQ_MAX_STAGES 4
#define XQ_NO_SIDE 0xFF

enum xq_msg_type {
    XQ_HELLO = 0x01, XQ_SYNC = 0x02, XQ_ACK_EVENTS = 0x03, XQ_REPLAY = 0x04,
    XQ_CONFIGURE = 0x10, XQ_SET_TIME = 0x11, XQ_ADJUST_TIME = 0x12, XQ_PAUSE = 0x13,
    XQ_RESUME = 0x14, XQ_START = 0x15, XQ_DISPLAY = 0x16, XQ_BEEP = 0x17,
    XQ_HELLO_REPLY = 0x81, XQ_ACK = 0x82, XQ_SYNC_REPLY = 0x83, XQ_EVENT = 0x84, XQ_SNAPSHOT = 0x85
};

enum xq_ack_status {
    XQ_OK = 0, XQ_DUPLICATE = 1, XQ_BAD_ARGS = 2, XQ_BAD_STATE = 3,
    XQ_UNKNOWN_TYPE = 4, XQ_BAD_VERSION = 5, XQ_STALE = 6
};

enum xq_frame_error { XQ_ERR_NONE = 0, XQ_ERR_COBS = -1, XQ_ERR_CRC = -2, XQ_ERR_LENGTH = -3 };

typedef struct {
    uint8_t version;
    uint8_t type;
    uint32_t seq;
    uint8_t len;
    uint8_t payload[XQ_MAX_PAYLOAD];
} xq_frame;

/* Byte-at-a-time frame splitter with bounded memory; counts what it had to throw away. */
typedef struct {
    uint8_t buf[XQ_MAX_ENCODED];
    uint8_t len;
    uint8_t overflow;
    uint16_t err_cobs, err_crc, err_length;
    uint32_t frames_ok;
} xq_reader;

uint16_t xq_crc16(const uint8_t *data, uint16_t n, uint16_t crc);
/* Encodes n bytes into out (room for n + n/254 + 1); returns the encoded length. */
uint16_t xq_cobs_encode(const uint8_t *in, uint16_t n, uint8_t *out);
/* Decodes into out (capacity cap); returns the length, or XQ_ERR_COBS / XQ_ERR_LENGTH. */
int xq_cobs_decode(const uint8_t *in, uint16_t n, uint8_t *out, uint16_t cap);
/* Writes COBS(raw) and the 0x00 delimiter (at most XQ_MAX_ENCODED + 1 bytes); returns length. */
uint16_t xq_frame_encode(const xq_frame *f, uint8_t *out);
/* Decodes one COBS block (delimiter excluded); returns XQ_ERR_NONE or an xq_frame_error. */
int xq_frame_decode(const uint8_t *enc, uint16_t n, xq_frame *f);

void xq_reader_init(xq_reader *r);
/* Feeds one byte; returns 1 and fills *out when a valid frame just ended, else 0. */
int xq_reader_push(xq_reader *r, uint8_t byte, xq_frame *out);

void xq_put_u16(uint8_t *p, uint16_t v);
void xq_put_u32(uint8_t *p, uint32_t v);
uint16_t xq_get_u16(const uint8_t *p);
uint32_t xq_get_u32(const uint8_t *p);
int xq_valid_utf8(const uint8_t *s, uint16_t n);

#endif
