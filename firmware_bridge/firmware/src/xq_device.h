/* The clock side of the protocol; mirrors firmware_bridge/device.py.
 *
 * Numbers every event from 1, keeps unacknowledged events in a ring, resends the oldest
 * XQ_RETX_BURST every XQ_RETX_MS until acknowledged, replays "everything after N" on
 * request, keeps the host's last selective request (a bit mask of the events it lacks) and
 * serves it itself in paced rounds (a SNAPSHOT too when it names events already overwritten,
 * so the host learns of the loss at once), sends a SNAPSHOT every XQ_SNAPSHOT_MS, answers HELLO/SYNC and executes commands at most once per sequence
 * number. Bytes to send go out through the tx callback (a UART on the board, a buffer in
 * the host tests).
 */
#ifndef XQ_DEVICE_H
#define XQ_DEVICE_H

#include <stdint.h>

#include "xq_clock.h"
#include "xq_proto.h"

#ifndef XQ_EVENT_CAPACITY
#define XQ_EVENT_CAPACITY 32
#endif
#define XQ_SNAPSHOT_MS 1000u
#define XQ_RETX_MS 200u
#define XQ_RETX_BURST 4u /* events resent per retransmission tick: the oldest unacknowledged */
/* Serving the host's last selective request: XQ_REPAIR_BURST events (27 bytes each on the
 * wire, 2.3 ms at 115200 baud) every XQ_REPAIR_MS, at most 37 % of the line, for
 * XQ_REPAIR_ROUNDS rounds unless a newer request replaces it (docs/clock-protocol.md 4). */
#define XQ_REPAIR_MS 25u
#define XQ_REPAIR_BURST 4u
#define XQ_REPAIR_ROUNDS 8u
#define XQ_RECENT_CMDS 16
#define XQ_FIRMWARE_NAME "xqclock 1.0"

typedef void (*xq_tx_fn)(void *ctx, const uint8_t *data, uint16_t len);

typedef struct {
    uint32_t seq;
    uint8_t status;
} xq_recent;

typedef struct {
    xq_clock clock;
    uint32_t boot_id;
    uint16_t capacity;
    xq_event ring[XQ_EVENT_CAPACITY];
    uint16_t ring_start; /* index of the oldest held event */
    uint16_t ring_len;
    uint32_t last_seq;
    uint32_t acked;
    uint32_t events_overwritten;
    uint16_t ring_peak; /* most events held at once: how close the ring came to overflowing */
    uint32_t events_resent; /* EVENT frames sent again (periodic, replays) */
    uint32_t want_after, want_mask; /* the host's last selective request */
    uint32_t want_next;             /* the event number the next repair round starts from */
    uint32_t want_last;             /* clock ms of the last repair round */
    uint8_t want_rounds;            /* repair rounds left (0: none) */
    uint32_t session;
    uint32_t max_cmd;
    xq_recent recent[XQ_RECENT_CMDS]; /* command seq's (seq, status) in slot seq % XQ_RECENT_CMDS */
    uint32_t next_snapshot;
    uint8_t retx_armed;
    uint32_t retx_at;
    uint32_t now;
    xq_reader reader;
    char display[2][XQ_MAX_TEXT + 1];
    uint8_t display_dirty;
    uint16_t beep_ms, beep_hz;
    uint8_t beep_pending;
    uint32_t bad_frames;
    const char *firmware;
    xq_tx_fn tx;
    void *tx_ctx;
} xq_device;

/* capacity: 1..XQ_EVENT_CAPACITY unacknowledged events kept. tc may be NULL (15 min). */
void xq_device_init(xq_device *d, uint32_t now_ms, uint32_t boot_id, uint16_t capacity,
                    const xq_tc *tc, const char *firmware, xq_tx_fn tx, void *tx_ctx);
void xq_device_receive(xq_device *d, const uint8_t *data, uint16_t n, uint32_t now_ms);
void xq_device_poll(xq_device *d, uint32_t now_ms);
void xq_device_press(xq_device *d, uint8_t side, uint32_t now_ms);
void xq_device_pause_button(xq_device *d, uint32_t now_ms);
uint32_t xq_device_oldest_held(const xq_device *d);

#endif
