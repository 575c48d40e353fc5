/* Time-control state machine in integer milliseconds; mirrors firmware_bridge/timecontrol.py.
 *
 * Every entry point takes now_ms (the clock's free-running millisecond counter, wrapping
 * at 2^32) and reports what happened through the emit callback, so the same inputs always
 * give the same events: that is what tests/clock/vectors.json checks against the Python.
 */
#ifndef XQ_CLOCK_H
#define XQ_CLOCK_H

#include <stdint.h>

#include "xq_proto.h"

enum xq_event_kind {
    XQ_EV_PRESS = 1, XQ_EV_FLAG = 2, XQ_EV_PERIOD = 3, XQ_EV_START = 4,
    XQ_EV_PAUSE = 5, XQ_EV_RESUME = 6, XQ_EV_ADJUST = 7, XQ_EV_CONFIG = 8
};
enum xq_state { XQ_READY = 0, XQ_RUNNING = 1, XQ_PAUSED = 2 };
enum xq_delay_mode { XQ_DELAY_NONE = 0, XQ_DELAY_SIMPLE = 1, XQ_DELAY_BRONSTEIN = 2 };

#define XQ_CONFIG_LEN (1 + 6 * XQ_MAX_STAGES + 15)
#define XQ_EVENT_LEN 17
#define XQ_SNAPSHOT_LEN 36

typedef struct {
    uint32_t time_ms;
    uint16_t moves; /* 0: for the rest of the game */
} xq_stage;

typedef struct {
    uint8_t nstages;
    xq_stage stages[XQ_MAX_STAGES];
    uint32_t increment_ms;
    uint32_t delay_ms;
    uint8_t delay_mode;
    uint32_t byo_ms;
    uint8_t byo_periods;
    uint8_t carry_time;
} xq_tc;

typedef struct {
    uint32_t remaining_ms;
    uint8_t stage;
    uint16_t moves_in_stage;
    uint16_t total_moves;
    uint8_t byo_left;
    uint8_t in_byo;
    uint8_t flagged;
    uint32_t delay_left_ms;
    uint32_t move_used_ms;
} xq_side;

typedef struct {
    uint8_t kind;
    uint8_t side;
    uint32_t clock_ms;
    uint32_t red_ms;
    uint32_t black_ms;
    uint8_t detail;
    uint16_t moves;
} xq_event;

typedef void (*xq_emit_fn)(void *ctx, const xq_event *ev);

typedef struct {
    xq_tc tc;
    uint8_t state;
    uint8_t running;
    uint32_t last_ms;
    xq_side sides[2];
    xq_emit_fn emit;
    void *ctx;
} xq_clock;

void xq_tc_sudden_death(xq_tc *tc, uint32_t time_ms);
/* Parses and validates a CONFIGURE payload; returns 0 or -1 (the clock answers BAD_ARGS). */
int xq_tc_unpack(xq_tc *tc, const uint8_t *p, uint8_t len);
void xq_event_pack(const xq_event *ev, uint8_t *out);

void xq_clock_init(xq_clock *c, const xq_tc *tc, uint32_t now_ms, xq_emit_fn emit, void *ctx);
void xq_clock_tick(xq_clock *c, uint32_t now_ms);
void xq_clock_configure(xq_clock *c, const xq_tc *tc, uint32_t now_ms);
void xq_clock_press(xq_clock *c, uint8_t side, uint32_t now_ms);
uint8_t xq_clock_start(xq_clock *c, uint8_t side, uint32_t now_ms);
void xq_clock_pause(xq_clock *c, uint32_t now_ms);
void xq_clock_resume(xq_clock *c, uint32_t now_ms);
uint8_t xq_clock_set_time(xq_clock *c, uint8_t side, uint32_t remaining_ms, uint32_t now_ms);
uint8_t xq_clock_adjust(xq_clock *c, uint8_t side, int32_t delta_ms, uint32_t now_ms);

#endif
