/* Clock-side protocol handling; see xq_device.h and firmware_bridge/device.py. */
#include "xq_device.h"

#include <string.h>

static int due(uint32_t now, uint32_t at) { return (int32_t)(now - at) >= 0; }

static void send(xq_device *d, uint8_t type, uint32_t seq, const uint8_t *payload, uint8_t len)
{
    xq_frame f;
    uint8_t out[XQ_MAX_ENCODED + 1];
    uint16_t n;
    f.version = XQ_PROTO_VERSION;
    f.type = type;
    f.seq = seq;
    f.len = len;
    if (len)
        memcpy(f.payload, payload, len);
    n = xq_frame_encode(&f, out);
    if (d->tx)
        d->tx(d->tx_ctx, out, n);
}

static void send_event(xq_device *d, uint32_t seq, const xq_event *ev)
{
    uint8_t p[XQ_EVENT_LEN];
    xq_event_pack(ev, p);
    send(d, XQ_EVENT, seq, p, XQ_EVENT_LEN);
}

static void send_ack(xq_device *d, uint32_t seq, uint8_t status)
{
    uint8_t p[5];
    p[0] = status;
    xq_put_u32(p + 1, d->now);
    send(d, XQ_ACK, seq, p, 5);
}

static const xq_event *ring_at(const xq_device *d, uint16_t i)
{
    return &d->ring[(d->ring_start + i) % d->capacity];
}

/* Called by the clock for every event it makes: number it, keep it, send it. */
static void on_event(void *ctx, const xq_event *ev)
{
    xq_device *d = (xq_device *)ctx;
    d->last_seq++;
    if (d->ring_len == d->capacity) {
        d->ring_start = (uint16_t)((d->ring_start + 1) % d->capacity);
        d->ring_len--;
        d->events_overwritten++;
    }
    d->ring[(d->ring_start + d->ring_len) % d->capacity] = *ev;
    d->ring_len++;
    if (d->ring_len > d->ring_peak)
        d->ring_peak = d->ring_len;
    send_event(d, d->last_seq, ev);
    if (!d->retx_armed) {
        d->retx_armed = 1;
        d->retx_at = d->now + XQ_RETX_MS;
    }
}

uint32_t xq_device_oldest_held(const xq_device *d) { return d->last_seq - d->ring_len + 1; }

static void ack_upto(xq_device *d, uint32_t upto)
{
    uint8_t progressed = 0;
    if (upto > d->last_seq)
        upto = d->last_seq;
    while (d->ring_len && xq_device_oldest_held(d) <= upto) {
        d->ring_start = (uint16_t)((d->ring_start + 1) % d->capacity);
        d->ring_len--;
        progressed = 1;
    }
    if (upto > d->acked)
        d->acked = upto;
    if (!d->ring_len)
        d->retx_armed = 0;
    else if (progressed) {
        d->retx_armed = 1;
        d->retx_at = d->now + XQ_RETX_MS;
    }
}

/* Sends held events after `after`, at most `limit` of them (0: all). */
static void resend(xq_device *d, uint32_t after, uint16_t limit)
{
    uint16_t i, sent = 0;
    uint32_t first = xq_device_oldest_held(d);
    for (i = 0; i < d->ring_len; i++) {
        if (first + i > after) {
            if (limit && sent >= limit)
                break;
            send_event(d, first + i, ring_at(d, i));
            d->events_resent++;
            sent++;
        }
    }
    d->retx_armed = d->ring_len ? 1 : 0;
    d->retx_at = d->now + XQ_RETX_MS;
}

static void send_snapshot(xq_device *d)
{
    uint8_t p[XQ_SNAPSHOT_LEN];
    uint8_t i;
    xq_put_u32(p, d->now);
    p[4] = d->clock.state;
    p[5] = d->clock.running;
    xq_put_u32(p + 6, d->acked);
    xq_put_u32(p + 10, xq_device_oldest_held(d));
    for (i = 0; i < 2; i++) {
        const xq_side *s = &d->clock.sides[i];
        uint8_t *q = p + 14 + 11 * i;
        xq_put_u32(q, s->remaining_ms);
        q[4] = s->stage;
        xq_put_u16(q + 5, s->moves_in_stage);
        xq_put_u16(q + 7, s->total_moves);
        q[9] = s->byo_left;
        q[10] = (uint8_t)((s->in_byo ? 1 : 0) | (s->flagged ? 2 : 0));
    }
    send(d, XQ_SNAPSHOT, d->last_seq, p, XQ_SNAPSHOT_LEN);
}

/* 1 if event `seq` is in the ring. */
static int held(const xq_device *d, uint32_t seq)
{
    uint32_t first = xq_device_oldest_held(d);
    return d->ring_len && seq - first <= d->last_seq - first;
}

/* One round of serving the host's last selective request: up to XQ_REPAIR_BURST of the
 * events it named that are still held, from the first at or after want_next on (wrapping),
 * so the rounds take turns over all of them. */
static void repair_round(xq_device *d)
{
    uint32_t first = xq_device_oldest_held(d);
    uint8_t i, k, start = 32, any = 0, sent = 0;
    d->want_last = d->now;
    d->want_rounds--;
    for (i = 0; i < 32; i++) {
        uint32_t seq = d->want_after + 1u + i;
        if ((d->want_mask >> i & 1u) && held(d, seq)) {
            any = 1;
            if (start == 32 && seq >= d->want_next)
                start = i;
        }
    }
    if (!any) {
        d->want_rounds = 0; /* all acknowledged or gone: nothing left to serve */
        return;
    }
    if (start == 32)
        start = 0;
    for (k = 0; k < 32 && sent < XQ_REPAIR_BURST; k++) {
        uint32_t seq;
        i = (uint8_t)((start + k) & 31u);
        seq = d->want_after + 1u + i;
        if ((d->want_mask >> i & 1u) && held(d, seq)) {
            send_event(d, seq, ring_at(d, (uint16_t)(seq - first)));
            d->events_resent++;
            d->want_next = seq + 1u;
            sent++;
        }
    }
}

/* A selective request (event after+1+i for every bit i of mask): kept and served in paced
 * rounds from now on. One that names an event the ring no longer holds (overwritten while
 * the host waited) also gets a SNAPSHOT, whose `oldest` tells the host at once how many
 * were lost. */
static void want(xq_device *d, uint32_t after, uint32_t mask)
{
    uint8_t i;
    for (i = 0; i < 32; i++) {
        if (mask >> i & 1u) {
            if (due(xq_device_oldest_held(d) - 1u, after + 1u + i)) /* the oldest named < first */
                send_snapshot(d);
            break;
        }
    }
    d->want_after = after;
    d->want_mask = mask;
    d->want_rounds = mask ? XQ_REPAIR_ROUNDS : 0;
    if (mask && (uint32_t)(d->now - d->want_last) >= XQ_REPAIR_MS)
        repair_round(d);
}

void xq_device_init(xq_device *d, uint32_t now_ms, uint32_t boot_id, uint16_t capacity,
                    const xq_tc *tc, const char *firmware, xq_tx_fn tx, void *tx_ctx)
{
    xq_tc def;
    memset(d, 0, sizeof *d);
    if (!tc) {
        xq_tc_sudden_death(&def, 15ul * 60ul * 1000ul);
        tc = &def;
    }
    if (capacity < 1 || capacity > XQ_EVENT_CAPACITY)
        capacity = XQ_EVENT_CAPACITY;
    d->capacity = capacity;
    d->boot_id = boot_id;
    d->firmware = firmware ? firmware : XQ_FIRMWARE_NAME;
    d->tx = tx;
    d->tx_ctx = tx_ctx;
    d->now = now_ms;
    d->next_snapshot = now_ms + XQ_SNAPSHOT_MS;
    d->want_last = now_ms - XQ_REPAIR_MS;
    xq_reader_init(&d->reader);
    xq_clock_init(&d->clock, tc, now_ms, on_event, d);
}

void xq_device_poll(xq_device *d, uint32_t now_ms)
{
    d->now = now_ms;
    xq_clock_tick(&d->clock, now_ms);
    if (d->retx_armed && due(now_ms, d->retx_at)) {
        if (d->want_rounds) /* the host is asking, and being answered: no blind resend */
            d->retx_at = now_ms + XQ_RETX_MS;
        else
            resend(d, d->acked, XQ_RETX_BURST);
    }
    if (d->want_rounds && (uint32_t)(now_ms - d->want_last) >= XQ_REPAIR_MS)
        repair_round(d);
    if (due(now_ms, d->next_snapshot)) {
        send_snapshot(d);
        d->next_snapshot += XQ_SNAPSHOT_MS;
        if (due(now_ms, d->next_snapshot))
            d->next_snapshot = now_ms + XQ_SNAPSHOT_MS;
    }
}

void xq_device_press(xq_device *d, uint8_t side, uint32_t now_ms)
{
    d->now = now_ms;
    xq_clock_press(&d->clock, side, now_ms);
}

void xq_device_pause_button(xq_device *d, uint32_t now_ms)
{
    d->now = now_ms;
    if (d->clock.state == XQ_PAUSED)
        xq_clock_resume(&d->clock, now_ms);
    else
        xq_clock_pause(&d->clock, now_ms);
}

static void hello(xq_device *d, const xq_frame *f)
{
    uint8_t p[XQ_MAX_PAYLOAD];
    uint8_t n, fwlen;
    uint32_t session;
    if (f->len != 6) {
        send_ack(d, f->seq, XQ_BAD_ARGS);
        return;
    }
    if (!(f->payload[0] <= XQ_PROTO_VERSION && XQ_PROTO_VERSION <= f->payload[1])) {
        send_ack(d, f->seq, XQ_BAD_VERSION);
        return;
    }
    session = xq_get_u32(f->payload + 2);
    if (session != d->session) {
        d->session = session;
        d->max_cmd = 0;
        memset(d->recent, 0, sizeof d->recent);
    }
    p[0] = XQ_PROTO_VERSION;
    p[1] = XQ_MIN_PROTO_VERSION;
    xq_put_u32(p + 2, d->boot_id);
    xq_put_u32(p + 6, d->now);
    xq_put_u32(p + 10, d->last_seq);
    xq_put_u32(p + 14, xq_device_oldest_held(d));
    p[18] = (uint8_t)(d->capacity > 255 ? 255 : d->capacity);
    n = 19;
    fwlen = (uint8_t)strlen(d->firmware);
    if (fwlen > 16)
        fwlen = 16;
    memcpy(p + n, d->firmware, fwlen);
    send(d, XQ_HELLO_REPLY, f->seq, p, (uint8_t)(n + fwlen));
}

static uint8_t execute(xq_device *d, const xq_frame *f)
{
    const uint8_t *p = f->payload;
    xq_clock *c = &d->clock;
    switch (f->type) {
    case XQ_CONFIGURE: {
        xq_tc tc;
        if (xq_tc_unpack(&tc, p, f->len) != 0)
            return XQ_BAD_ARGS;
        xq_clock_configure(c, &tc, d->now);
        return XQ_OK;
    }
    case XQ_PAUSE:
    case XQ_RESUME:
        if (f->len)
            return XQ_BAD_ARGS;
        if (f->type == XQ_PAUSE)
            xq_clock_pause(c, d->now);
        else
            xq_clock_resume(c, d->now);
        return XQ_OK;
    case XQ_START:
        if (f->len != 1)
            return XQ_BAD_ARGS;
        return xq_clock_start(c, p[0], d->now);
    case XQ_SET_TIME:
    case XQ_ADJUST_TIME:
        if (f->len != 5)
            return XQ_BAD_ARGS;
        if (f->type == XQ_SET_TIME)
            return xq_clock_set_time(c, p[0], xq_get_u32(p + 1), d->now);
        return xq_clock_adjust(c, p[0], (int32_t)xq_get_u32(p + 1), d->now);
    case XQ_DISPLAY: {
        uint8_t side;
        if (f->len < 1 || f->len > 1 + XQ_MAX_TEXT || p[0] > 2 || !xq_valid_utf8(p + 1, (uint16_t)(f->len - 1)))
            return XQ_BAD_ARGS;
        for (side = 0; side < 2; side++) {
            if (p[0] == side || p[0] == 2) {
                memcpy(d->display[side], p + 1, (size_t)(f->len - 1));
                d->display[side][f->len - 1] = 0;
                d->display_dirty |= (uint8_t)(1u << side);
            }
        }
        return XQ_OK;
    }
    case XQ_BEEP:
        if (f->len != 4)
            return XQ_BAD_ARGS;
        d->beep_ms = xq_get_u16(p);
        d->beep_hz = xq_get_u16(p + 2);
        d->beep_pending = 1;
        return XQ_OK;
    default:
        return XQ_UNKNOWN_TYPE;
    }
}

/* Runs a command once per sequence number (device.py _command). The memory is indexed by
 * number, slot seq % XQ_RECENT_CMDS, not by arrival: commands from the host's threads and
 * their retries arrive in any order, so more than XQ_RECENT_CMDS others may run between a
 * command and its retry: a list of the last ones run would have forgotten it and, the retry
 * not being STALE yet, run it again. A slot is overwritten only by a number XQ_RECENT_CMDS or more
 * higher, which makes the old one STALE: a number never runs twice in a session. */
static uint8_t command(xq_device *d, const xq_frame *f)
{
    xq_recent *r = &d->recent[f->seq % XQ_RECENT_CMDS];
    uint8_t status;
    if (f->seq == 0)
        return XQ_BAD_ARGS;
    if (r->seq == f->seq)
        return r->status == XQ_OK ? XQ_DUPLICATE : r->status;
    if (d->max_cmd >= XQ_RECENT_CMDS && f->seq <= d->max_cmd - XQ_RECENT_CMDS)
        return XQ_STALE;
    status = execute(d, f);
    r->seq = f->seq;
    r->status = status;
    if (f->seq > d->max_cmd)
        d->max_cmd = f->seq;
    return status;
}

static int stateful(uint8_t type) { return type >= XQ_CONFIGURE && type <= XQ_BEEP; }

static void handle(xq_device *d, const xq_frame *f)
{
    if (f->type == XQ_HELLO) {
        hello(d, f);
        return;
    }
    if (f->version != XQ_PROTO_VERSION) {
        if (stateful(f->type))
            send_ack(d, f->seq, XQ_BAD_VERSION);
        d->bad_frames++;
        return;
    }
    if (f->type == XQ_SYNC) {
        uint8_t p[4];
        xq_put_u32(p, d->now);
        send(d, XQ_SYNC_REPLY, f->seq, p, 4);
    } else if (f->type == XQ_ACK_EVENTS || f->type == XQ_REPLAY) {
        if (f->len != 4 && !(f->type == XQ_REPLAY && f->len == 8)) {
            d->bad_frames++;
            return;
        }
        ack_upto(d, xq_get_u32(f->payload));
        if (f->type == XQ_REPLAY && f->len == 8)
            want(d, xq_get_u32(f->payload), xq_get_u32(f->payload + 4));
        else if (f->type == XQ_REPLAY) {
            d->want_rounds = 0; /* everything after `after` goes now */
            resend(d, xq_get_u32(f->payload), 0);
        }
    } else if (stateful(f->type)) {
        uint8_t status = command(d, f);
        send_ack(d, f->seq, status);
    } else if (f->type < 0x80) {
        send_ack(d, f->seq, XQ_UNKNOWN_TYPE);
    } else {
        d->bad_frames++;
    }
}

void xq_device_receive(xq_device *d, const uint8_t *data, uint16_t n, uint32_t now_ms)
{
    uint16_t i;
    xq_frame f;
    uint16_t before = (uint16_t)(d->reader.err_cobs + d->reader.err_crc + d->reader.err_length);
    d->now = now_ms;
    for (i = 0; i < n; i++)
        if (xq_reader_push(&d->reader, data[i], &f))
            handle(d, &f);
    d->bad_frames += (uint16_t)(d->reader.err_cobs + d->reader.err_crc + d->reader.err_length) - before;
}
