/* Time-control state machine; the rules are written out in firmware_bridge/timecontrol.py
 * and docs/clock-protocol.md. Keep this file and timecontrol.py in step: the shared vectors
 * fail on any difference. */
#include "xq_clock.h"

#include <string.h>

#define U32_MAX 0xFFFFFFFFul

static uint32_t sat_add(uint32_t a, uint32_t b) { return (a > U32_MAX - b) ? U32_MAX : a + b; }
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

void xq_tc_sudden_death(xq_tc *tc, uint32_t time_ms)
{
    memset(tc, 0, sizeof *tc);
    tc->nstages = 1;
    tc->stages[0].time_ms = time_ms;
    tc->carry_time = 1;
}

int xq_tc_unpack(xq_tc *tc, const uint8_t *p, uint8_t len)
{
    xq_tc t;
    uint8_t i;
    const uint8_t *q = p + 1 + 6 * XQ_MAX_STAGES;
    if (len != XQ_CONFIG_LEN)
        return -1;
    memset(&t, 0, sizeof t);
    t.nstages = p[0];
    if (t.nstages < 1 || t.nstages > XQ_MAX_STAGES)
        return -1;
    for (i = 0; i < t.nstages; i++) {
        t.stages[i].time_ms = xq_get_u32(p + 1 + 6 * i);
        t.stages[i].moves = xq_get_u16(p + 5 + 6 * i);
    }
    t.increment_ms = xq_get_u32(q);
    t.delay_ms = xq_get_u32(q + 4);
    t.delay_mode = q[8];
    t.byo_ms = xq_get_u32(q + 9);
    t.byo_periods = q[13];
    t.carry_time = q[14] & 1;
    if (t.delay_mode > 2 || t.stages[0].time_ms == 0 || (t.byo_periods > 0 && t.byo_ms == 0))
        return -1;
    *tc = t;
    return 0;
}

void xq_event_pack(const xq_event *ev, uint8_t *out)
{
    out[0] = ev->kind;
    out[1] = ev->side;
    xq_put_u32(out + 2, ev->clock_ms);
    xq_put_u32(out + 6, ev->red_ms);
    xq_put_u32(out + 10, ev->black_ms);
    out[14] = ev->detail;
    xq_put_u16(out + 15, ev->moves);
}

static void emit(xq_clock *c, uint8_t kind, uint8_t side, uint32_t t, uint8_t detail, uint16_t moves)
{
    xq_event ev;
    ev.kind = kind;
    ev.side = side;
    ev.clock_ms = t;
    ev.red_ms = c->sides[0].remaining_ms;
    ev.black_ms = c->sides[1].remaining_ms;
    ev.detail = detail;
    ev.moves = moves;
    if (c->emit)
        c->emit(c->ctx, &ev);
}

static void reset(xq_clock *c, uint32_t now_ms)
{
    uint8_t i;
    c->state = XQ_READY;
    c->running = XQ_NO_SIDE;
    c->last_ms = now_ms;
    for (i = 0; i < 2; i++) {
        memset(&c->sides[i], 0, sizeof c->sides[i]);
        c->sides[i].remaining_ms = c->tc.stages[0].time_ms;
    }
}

static void begin_turn(xq_clock *c, uint8_t side)
{
    xq_side *s = &c->sides[side];
    s->delay_left_ms = (c->tc.delay_mode == XQ_DELAY_SIMPLE) ? c->tc.delay_ms : 0;
    s->move_used_ms = 0;
}

/* Runs the running side's time from last_ms to now_ms; PERIOD/FLAG at the exact ms. */
static void advance(xq_clock *c, uint32_t now_ms)
{
    uint32_t elapsed = now_ms - c->last_ms;
    uint32_t cursor = c->last_ms;
    uint8_t side;
    xq_side *s;
    if (elapsed > 0x7FFFFFFFul)
        return; /* stamped before the last update: never un-run time, never count it twice */
    c->last_ms = now_ms;
    if (c->state != XQ_RUNNING || c->running == XQ_NO_SIDE)
        return;
    side = c->running;
    s = &c->sides[side];
    if (s->flagged)
        return;
    while (elapsed > 0) {
        if (s->delay_left_ms > 0 && !s->in_byo) {
            uint32_t d = min_u32(elapsed, s->delay_left_ms);
            s->delay_left_ms -= d;
            s->move_used_ms = sat_add(s->move_used_ms, d);
            elapsed -= d;
            cursor += d;
            continue;
        }
        if (s->remaining_ms > elapsed) {
            s->remaining_ms -= elapsed;
            s->move_used_ms = sat_add(s->move_used_ms, elapsed);
            return;
        }
        cursor += s->remaining_ms;
        elapsed -= s->remaining_ms;
        s->move_used_ms = sat_add(s->move_used_ms, s->remaining_ms);
        s->remaining_ms = 0;
        if (!s->in_byo && c->tc.byo_periods > 0) {
            s->in_byo = 1;
            s->byo_left = c->tc.byo_periods;
            s->remaining_ms = c->tc.byo_ms;
            emit(c, XQ_EV_PERIOD, side, cursor, (uint8_t)(0x80 | s->byo_left), 0);
        } else if (s->in_byo && s->byo_left > 1) {
            s->byo_left--;
            s->remaining_ms = c->tc.byo_ms;
            emit(c, XQ_EV_PERIOD, side, cursor, (uint8_t)(0x80 | s->byo_left), 0);
        } else {
            if (s->in_byo)
                s->byo_left = 0;
            s->flagged = 1;
            emit(c, XQ_EV_FLAG, side, cursor, 0, s->total_moves);
            return;
        }
    }
}

void xq_clock_init(xq_clock *c, const xq_tc *tc, uint32_t now_ms, xq_emit_fn fn, void *ctx)
{
    memset(c, 0, sizeof *c);
    c->tc = *tc;
    c->emit = fn;
    c->ctx = ctx;
    reset(c, now_ms);
}

void xq_clock_tick(xq_clock *c, uint32_t now_ms) { advance(c, now_ms); }

void xq_clock_configure(xq_clock *c, const xq_tc *tc, uint32_t now_ms)
{
    c->tc = *tc;
    reset(c, now_ms);
    emit(c, XQ_EV_CONFIG, XQ_NO_SIDE, now_ms, 0, 0);
}

void xq_clock_press(xq_clock *c, uint8_t side, uint32_t now_ms)
{
    xq_side *s;
    int new_stage = -1;
    advance(c, now_ms);
    if (side > 1)
        return;
    if (c->state == XQ_READY) {
        c->state = XQ_RUNNING;
        c->running = (uint8_t)(1 - side);
        c->last_ms = now_ms;
        begin_turn(c, c->running);
        emit(c, XQ_EV_START, c->running, now_ms, 0, 0);
        return;
    }
    if (c->state != XQ_RUNNING || side != c->running)
        return;
    s = &c->sides[side];
    s->total_moves++;
    if (!s->flagged) {
        if (s->in_byo) {
            s->remaining_ms = c->tc.byo_ms;
        } else {
            uint16_t quota;
            s->moves_in_stage++;
            quota = c->tc.stages[s->stage].moves;
            if (quota > 0 && s->moves_in_stage >= quota) {
                uint8_t nxt = (uint8_t)(s->stage + 1 < c->tc.nstages ? s->stage + 1 : c->tc.nstages - 1);
                uint32_t add = c->tc.stages[nxt].time_ms;
                s->remaining_ms = c->tc.carry_time ? sat_add(s->remaining_ms, add) : add;
                s->stage = nxt;
                s->moves_in_stage = 0;
                new_stage = nxt;
            }
            if (c->tc.delay_mode == XQ_DELAY_BRONSTEIN)
                s->remaining_ms = sat_add(s->remaining_ms, min_u32(s->move_used_ms, c->tc.delay_ms));
            s->remaining_ms = sat_add(s->remaining_ms, c->tc.increment_ms);
        }
    }
    c->running = (uint8_t)(1 - side);
    begin_turn(c, c->running);
    emit(c, XQ_EV_PRESS, side, now_ms, 0, s->total_moves);
    if (new_stage >= 0)
        emit(c, XQ_EV_PERIOD, side, now_ms, (uint8_t)new_stage, s->total_moves);
}

uint8_t xq_clock_start(xq_clock *c, uint8_t side, uint32_t now_ms)
{
    advance(c, now_ms);
    if (side > 1)
        return XQ_BAD_ARGS;
    if (c->state == XQ_READY) {
        c->state = XQ_RUNNING;
        c->running = side;
        c->last_ms = now_ms;
        begin_turn(c, side);
        emit(c, XQ_EV_START, side, now_ms, 0, 0);
        return XQ_OK;
    }
    return c->running == side ? XQ_OK : XQ_BAD_STATE;
}

void xq_clock_pause(xq_clock *c, uint32_t now_ms)
{
    advance(c, now_ms);
    if (c->state == XQ_RUNNING) {
        c->state = XQ_PAUSED;
        emit(c, XQ_EV_PAUSE, c->running, now_ms, 0, 0);
    }
}

void xq_clock_resume(xq_clock *c, uint32_t now_ms)
{
    advance(c, now_ms);
    if (c->state == XQ_PAUSED) {
        c->state = XQ_RUNNING;
        c->last_ms = now_ms;
        emit(c, XQ_EV_RESUME, c->running, now_ms, 0, 0);
    }
}

uint8_t xq_clock_set_time(xq_clock *c, uint8_t side, uint32_t remaining_ms, uint32_t now_ms)
{
    xq_side *s;
    advance(c, now_ms);
    if (side > 1)
        return XQ_BAD_ARGS;
    s = &c->sides[side];
    s->remaining_ms = remaining_ms;
    if (remaining_ms > 0)
        s->flagged = 0;
    emit(c, XQ_EV_ADJUST, side, now_ms, 0, s->total_moves);
    return XQ_OK;
}

uint8_t xq_clock_adjust(xq_clock *c, uint8_t side, int32_t delta_ms, uint32_t now_ms)
{
    xq_side *s;
    int64_t v;
    advance(c, now_ms);
    if (side > 1)
        return XQ_BAD_ARGS;
    s = &c->sides[side];
    v = (int64_t)s->remaining_ms + delta_ms;
    if (v < 0)
        v = 0;
    if (v > (int64_t)U32_MAX)
        v = (int64_t)U32_MAX;
    s->remaining_ms = (uint32_t)v;
    if (s->remaining_ms > 0)
        s->flagged = 0;
    emit(c, XQ_EV_ADJUST, side, now_ms, 0, s->total_moves);
    return XQ_OK;
}
