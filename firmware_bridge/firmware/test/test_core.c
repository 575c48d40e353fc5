/* Host unit tests of the firmware core, hand-computed expectations (no Python needed).
 * Build and run: make test. The shared vectors (tests/clock) check the C against the
 * Python reference on top of these. */
#include <stdio.h>
#include <string.h>

#include "xq_clock.h"
#include "xq_device.h"
#include "xq_proto.h"

static int failures, checks;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        checks++;                                                                   \
        if (!(cond)) {                                                              \
            failures++;                                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
        }                                                                           \
    } while (0)

#define MAXEV 64
static xq_event evs[MAXEV];
static int nev;

static void collect(void *ctx, const xq_event *ev)
{
    (void)ctx;
    if (nev < MAXEV)
        evs[nev++] = *ev;
}

static void test_crc_cobs(void)
{
    const uint8_t check[] = "123456789";
    uint8_t raw[300], enc[310], dec[310];
    int i, n;
    CHECK(xq_crc16(check, 9, 0xFFFF) == 0x29B1);
    for (i = 0; i < 300; i++)
        raw[i] = (uint8_t)(i % 7 == 0 ? 0 : i);
    n = xq_cobs_encode(raw, 300, enc);
    for (i = 0; i < n; i++)
        CHECK(enc[i] != 0);
    CHECK(xq_cobs_decode(enc, (uint16_t)n, dec, sizeof dec) == 300);
    CHECK(memcmp(raw, dec, 300) == 0);
    {
        const uint8_t bad[] = {5, 1, 2};
        CHECK(xq_cobs_decode(bad, 3, dec, sizeof dec) == XQ_ERR_COBS);
    }
}

static void test_frame_roundtrip_and_reader(void)
{
    xq_frame f, g;
    xq_reader r;
    uint8_t wire[XQ_MAX_ENCODED + 1];
    uint16_t n, i;
    int got = 0;
    memset(&f, 0, sizeof f);
    f.version = 1;
    f.type = XQ_EVENT;
    f.seq = 0x01020304;
    f.len = XQ_MAX_PAYLOAD;
    for (i = 0; i < f.len; i++)
        f.payload[i] = (uint8_t)(i * 37);
    n = xq_frame_encode(&f, wire);
    CHECK(wire[n - 1] == 0);
    CHECK(n <= XQ_MAX_ENCODED + 1);
    CHECK(xq_frame_decode(wire, (uint16_t)(n - 1), &g) == XQ_ERR_NONE);
    CHECK(g.seq == f.seq && g.len == f.len && memcmp(g.payload, f.payload, f.len) == 0);
    wire[5] ^= 0x10;
    CHECK(xq_frame_decode(wire, (uint16_t)(n - 1), &g) == XQ_ERR_CRC);
    wire[5] ^= 0x10;
    xq_reader_init(&r);
    for (i = 0; i < 60; i++)
        xq_reader_push(&r, 0x55, &g); /* overlong run */
    for (i = 0; i < n; i++)
        got += xq_reader_push(&r, wire[i], &g); /* its delimiter ends the run: counted */
    for (i = 0; i < n; i++)
        got += xq_reader_push(&r, wire[i], &g);
    CHECK(got == 1);
    CHECK(r.err_length == 1);
}

static void test_utf8(void)
{
    const uint8_t pao[] = "\xe7\x82\xae\xe4\xba\x8c\xe5\xb9\xb3\xe4\xba\x94"; /* 炮二平五 */
    CHECK(xq_valid_utf8(pao, 12));
    CHECK(!xq_valid_utf8(pao, 11));
    CHECK(!xq_valid_utf8((const uint8_t *)"\xc0\x80", 2)); /* overlong */
    CHECK(!xq_valid_utf8((const uint8_t *)"\xed\xa0\x80", 3)); /* surrogate */
}

static void start(xq_clock *c, const xq_tc *tc)
{
    nev = 0;
    xq_clock_init(c, tc, 0, collect, NULL);
    xq_clock_press(c, 1, 0); /* black's press starts red */
}

static void test_sudden_death_flag(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 1000);
    start(&c, &tc);
    CHECK(nev == 1 && evs[0].kind == XQ_EV_START && evs[0].side == 0);
    xq_clock_press(&c, 0, 400);
    CHECK(c.sides[0].remaining_ms == 600);
    xq_clock_tick(&c, 5000); /* black runs out at 400 + 1000 */
    CHECK(nev == 3 && evs[2].kind == XQ_EV_FLAG && evs[2].side == 1 && evs[2].clock_ms == 1400);
    CHECK(c.sides[1].remaining_ms == 0 && c.sides[1].flagged);
    xq_clock_press(&c, 1, 6000); /* flagged side: no time back, the game goes on */
    CHECK(c.sides[1].remaining_ms == 0 && c.running == 0);
}

static void test_fischer(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 60ul * 60000ul);
    tc.increment_ms = 30000;
    start(&c, &tc);
    xq_clock_press(&c, 0, 100000);
    CHECK(c.sides[0].remaining_ms == 3600000 - 100000 + 30000);
}

static void test_periods(void)
{
    xq_clock c;
    xq_tc tc;
    int i;
    uint32_t t = 0;
    xq_tc_sudden_death(&tc, 5000);
    tc.nstages = 2;
    tc.stages[0].moves = 2;
    tc.stages[1].time_ms = 3000;
    tc.stages[1].moves = 1;
    start(&c, &tc);
    for (i = 0; i < 2; i++) {
        t += 1000;
        xq_clock_press(&c, 0, t);
        t += 10;
        xq_clock_press(&c, 1, t);
    }
    /* red: 5000 - 2000 + 3000 (carried), stage 1 */
    CHECK(c.sides[0].remaining_ms == 6000 && c.sides[0].stage == 1 && c.sides[0].moves_in_stage == 0);
    t += 500;
    xq_clock_press(&c, 0, t); /* one move in stage 1 completes it; the last stage repeats */
    CHECK(c.sides[0].remaining_ms == 6000 - 500 + 3000 && c.sides[0].stage == 1);
    tc.carry_time = 0;
    start(&c, &tc);
    xq_clock_press(&c, 0, 1000);
    xq_clock_press(&c, 1, 1010);
    xq_clock_press(&c, 0, 2010);
    CHECK(c.sides[0].remaining_ms == 3000); /* left-over time not carried */
}

static void test_byoyomi(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 1000);
    tc.byo_ms = 500;
    tc.byo_periods = 2;
    start(&c, &tc);
    xq_clock_tick(&c, 1200);
    CHECK(nev == 2 && evs[1].kind == XQ_EV_PERIOD && evs[1].clock_ms == 1000 && evs[1].detail == (0x80 | 2));
    CHECK(c.sides[0].in_byo && c.sides[0].remaining_ms == 300);
    xq_clock_press(&c, 0, 1400);
    CHECK(c.sides[0].remaining_ms == 500 && c.sides[0].byo_left == 2);
    xq_clock_press(&c, 1, 1400);
    xq_clock_tick(&c, 2400); /* period used up at 1900, next one runs out at 2400: flag */
    CHECK(evs[nev - 2].kind == XQ_EV_PERIOD && evs[nev - 2].clock_ms == 1900);
    CHECK(evs[nev - 1].kind == XQ_EV_FLAG && evs[nev - 1].clock_ms == 2400 && c.sides[0].flagged);
}

static void test_delays(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 5000);
    tc.delay_ms = 1000;
    tc.delay_mode = XQ_DELAY_SIMPLE;
    start(&c, &tc);
    xq_clock_press(&c, 0, 800);
    CHECK(c.sides[0].remaining_ms == 5000);
    xq_clock_press(&c, 1, 3300);
    CHECK(c.sides[1].remaining_ms == 3500);
    tc.delay_mode = XQ_DELAY_BRONSTEIN;
    start(&c, &tc);
    xq_clock_press(&c, 0, 800);
    CHECK(c.sides[0].remaining_ms == 5000);
    xq_clock_press(&c, 1, 3300);
    CHECK(c.sides[1].remaining_ms == 5000 - 2500 + 1000);
}

static void test_arbiter(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 10000);
    start(&c, &tc);
    xq_clock_pause(&c, 1000);
    xq_clock_tick(&c, 5000);
    CHECK(c.sides[0].remaining_ms == 9000);
    xq_clock_press(&c, 0, 5100); /* ignored while paused */
    CHECK(c.running == 0);
    CHECK(xq_clock_adjust(&c, 0, 60000, 5200) == XQ_OK && c.sides[0].remaining_ms == 69000);
    CHECK(xq_clock_adjust(&c, 0, -100000, 5300) == XQ_OK && c.sides[0].remaining_ms == 0);
    CHECK(xq_clock_set_time(&c, 0, 2000, 5400) == XQ_OK && c.sides[0].remaining_ms == 2000);
    CHECK(xq_clock_set_time(&c, 3, 2000, 5400) == XQ_BAD_ARGS);
    xq_clock_resume(&c, 6000);
    xq_clock_tick(&c, 6500);
    CHECK(c.sides[0].remaining_ms == 1500);
}

static void test_wrap(void)
{
    xq_clock c;
    xq_tc tc;
    xq_tc_sudden_death(&tc, 10000);
    nev = 0;
    xq_clock_init(&c, &tc, 0xFFFFF000ul, collect, NULL);
    xq_clock_press(&c, 1, 0xFFFFF000ul);
    xq_clock_tick(&c, 0x00000400ul); /* 0x1400 = 5120 ms later, across the wrap */
    CHECK(c.sides[0].remaining_ms == 10000 - 5120);
}

static uint8_t txb[4096];
static uint16_t txn;
static void txcap(void *ctx, const uint8_t *d, uint16_t n)
{
    (void)ctx;
    if (txn + n <= sizeof txb) {
        memcpy(txb + txn, d, n);
        txn = (uint16_t)(txn + n);
    }
}

static int count_type(uint8_t type)
{
    xq_reader r;
    xq_frame f;
    uint16_t i;
    int k = 0;
    xq_reader_init(&r);
    for (i = 0; i < txn; i++)
        if (xq_reader_push(&r, txb[i], &f) && f.type == type)
            k++;
    return k;
}

static void test_device_retention(void)
{
    static xq_device d;
    uint8_t wire[XQ_MAX_ENCODED + 1];
    xq_frame f;
    uint16_t n;
    xq_device_init(&d, 0, 7, 4, NULL, NULL, txcap, NULL);
    txn = 0;
    xq_device_press(&d, 1, 10);
    xq_device_press(&d, 0, 20);
    CHECK(count_type(XQ_EVENT) == 2 && d.ring_len == 2);
    txn = 0;
    xq_device_poll(&d, 210); /* unacknowledged: sent again after XQ_RETX_MS */
    CHECK(count_type(XQ_EVENT) == 2);
    memset(&f, 0, sizeof f);
    f.version = 1;
    f.type = XQ_ACK_EVENTS;
    f.len = 4;
    xq_put_u32(f.payload, 2);
    n = xq_frame_encode(&f, wire);
    xq_device_receive(&d, wire, n, 220);
    CHECK(d.ring_len == 0 && d.acked == 2);
    txn = 0;
    xq_device_poll(&d, 1000);
    CHECK(count_type(XQ_EVENT) == 0 && count_type(XQ_SNAPSHOT) == 1);
}

static const xq_frame *find_frame(uint8_t type, xq_frame *f)
{
    xq_reader r;
    uint16_t i;
    xq_reader_init(&r);
    for (i = 0; i < txn; i++)
        if (xq_reader_push(&r, txb[i], f) && f->type == type)
            return f;
    return NULL;
}

static void test_replay_of_overwritten_events_reports_the_loss(void)
{
    static xq_device d;
    uint8_t wire[XQ_MAX_ENCODED + 1];
    xq_frame f, got;
    uint16_t n, i;
    xq_device_init(&d, 0, 7, 4, NULL, NULL, txcap, NULL);
    for (i = 0; i < 7; i++) /* events 1..7 in a ring of 4: 1, 2 and 3 overwritten */
        xq_device_press(&d, (uint8_t)(i % 2), (uint32_t)(100 + 100 * i));
    CHECK(d.ring_peak == 4 && d.events_overwritten == 3 && xq_device_oldest_held(&d) == 4);
    memset(&f, 0, sizeof f);
    f.version = 1;
    f.type = XQ_REPLAY;
    f.len = 8;
    xq_put_u32(f.payload, 0);
    xq_put_u32(f.payload + 4, 0xFu); /* the host still waits for 1..4 */
    n = xq_frame_encode(&f, wire);
    txn = 0;
    xq_device_receive(&d, wire, n, 900);
    CHECK(count_type(XQ_SNAPSHOT) == 1 && count_type(XQ_EVENT) == 1);
    CHECK(find_frame(XQ_SNAPSHOT, &got) != NULL && xq_get_u32(got.payload + 10) == 4); /* oldest */
    CHECK(find_frame(XQ_EVENT, &got) != NULL && got.seq == 4);
    xq_put_u32(f.payload, 4);
    xq_put_u32(f.payload + 4, 0x2u); /* event 6, still held: no snapshot */
    n = xq_frame_encode(&f, wire);
    txn = 0;
    xq_device_receive(&d, wire, n, 910); /* 10 ms after the last repair round: kept, not yet served */
    CHECK(count_type(XQ_SNAPSHOT) == 0 && count_type(XQ_EVENT) == 0 && d.want_rounds == XQ_REPAIR_ROUNDS);
    xq_device_poll(&d, 924);
    CHECK(count_type(XQ_EVENT) == 0);
    xq_device_poll(&d, 925);
    CHECK(count_type(XQ_EVENT) == 1 && find_frame(XQ_EVENT, &got) != NULL && got.seq == 6);
}

/* A selective request is served in paced rounds: XQ_REPAIR_BURST events per XQ_REPAIR_MS,
 * taking turns over everything named, for XQ_REPAIR_ROUNDS rounds. */
static void test_selective_request_is_served_in_paced_rounds(void)
{
    static xq_device d;
    uint8_t wire[XQ_MAX_ENCODED + 1];
    xq_frame f, got;
    xq_reader r;
    uint16_t n, i;
    uint32_t t, seen[16];
    int total = 0, rounds = 0;
    xq_device_init(&d, 0, 7, 32, NULL, NULL, txcap, NULL);
    for (i = 0; i < 12; i++)
        xq_device_press(&d, (uint8_t)(i % 2), (uint32_t)(100 + 10 * i));
    memset(&f, 0, sizeof f);
    f.version = 1;
    f.type = XQ_REPLAY;
    f.len = 8;
    xq_put_u32(f.payload, 0);
    xq_put_u32(f.payload + 4, 0x3Fu); /* events 1..6 */
    n = xq_frame_encode(&f, wire);
    memset(seen, 0, sizeof seen);
    xq_device_poll(&d, 999); /* the periodic resend of the oldest 4 now, the next at 1199 */
    for (t = 1000; t < 1199; t++) {
        txn = 0;
        if (t == 1000)
            xq_device_receive(&d, wire, n, t);
        else
            xq_device_poll(&d, t);
        if (count_type(XQ_EVENT)) {
            rounds++;
            CHECK(count_type(XQ_EVENT) == (int)XQ_REPAIR_BURST);
            CHECK((t - 1000) % XQ_REPAIR_MS == 0);
            xq_reader_init(&r);
            for (i = 0; i < txn; i++)
                if (xq_reader_push(&r, txb[i], &got) && got.type == XQ_EVENT && got.seq >= 1 && got.seq <= 6) {
                    seen[got.seq]++;
                    total++;
                }
        }
    }
    CHECK(rounds == (int)XQ_REPAIR_ROUNDS && d.want_rounds == 0);
    for (i = 1; i <= 6; i++)
        CHECK(seen[i] >= 5); /* 32 sends taking turns over 6 events */
    CHECK(total == (int)(XQ_REPAIR_ROUNDS * XQ_REPAIR_BURST));
}

static uint8_t send_adjust(xq_device *d, uint32_t seq, uint32_t now)
{
    uint8_t wire[XQ_MAX_ENCODED + 1];
    xq_frame f;
    memset(&f, 0, sizeof f);
    f.version = 1;
    f.type = XQ_ADJUST_TIME;
    f.seq = seq;
    f.len = 5;
    f.payload[0] = 1; /* black */
    xq_put_u32(f.payload + 1, 100);
    txn = 0;
    xq_device_receive(d, wire, xq_frame_encode(&f, wire), now);
    return find_frame(XQ_ACK, &f) && f.seq == seq ? f.payload[0] : 0xFF;
}

/* Four threads' commands 1..4: 4 runs first and its ACK is lost, 1..3 run from their retries,
 * then the host numbers up to 4 + 15 = 19 while 4 is unanswered. 18 others ran after 4, all
 * within 16 numbers of it: 4's retry is a duplicate, not a second +100 ms. */
static void test_a_retry_after_more_than_16_others_ran_is_not_run_again(void)
{
    static xq_device d;
    static const uint8_t first[4] = {4, 1, 2, 3};
    uint32_t seq;
    int ok = 1;
    xq_device_init(&d, 0, 7, 32, NULL, NULL, txcap, NULL);
    for (seq = 0; seq < 4; seq++)
        ok &= send_adjust(&d, first[seq], 1 + seq) == XQ_OK;
    for (seq = 5; seq < 20; seq++)
        ok &= send_adjust(&d, seq, 10 + seq) == XQ_OK;
    CHECK(ok);
    CHECK(send_adjust(&d, 4, 40) == XQ_DUPLICATE);
    CHECK(d.clock.sides[1].remaining_ms == 900000ul + 19 * 100);
    CHECK(send_adjust(&d, 3, 41) == XQ_STALE); /* 16 below the highest, 19 */
}

int main(void)
{
    test_crc_cobs();
    test_frame_roundtrip_and_reader();
    test_utf8();
    test_sudden_death_flag();
    test_fischer();
    test_periods();
    test_byoyomi();
    test_delays();
    test_arbiter();
    test_wrap();
    test_device_retention();
    test_replay_of_overwritten_events_reports_the_loss();
    test_selective_request_is_served_in_paced_rounds();
    test_a_retry_after_more_than_16_others_ran_is_not_run_again();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
