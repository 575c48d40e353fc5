/* Board layer for an Arduino Nano (ATmega328P, 16 MHz): two levers, a pause key, two
 * HD44780 16x2 displays, a piezo buzzer and the USB serial line at 115200 baud.
 * Wiring: board/WIRING.md. Everything about time and the protocol is in the portable core
 * (src/); this file only moves bits between pins and the core.
 *
 * Timing: Timer0 gives a 1 kHz tick (the clock's millisecond counter). A lever press is
 * stamped inside its pin interrupt, so the press time is exact to the millisecond even when
 * the main loop is busy sending a replay; the core refuses to count time twice if a stamp is
 * older than its last update.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <string.h>
#include <util/delay.h>

#include "xq_device.h"

#define DEBOUNCE_MS 40u

/* ------------------------------------------------------------------ millisecond clock */
static volatile uint32_t g_ms;
static volatile uint16_t g_beep_left;

ISR(TIMER0_COMPA_vect)
{
    g_ms++;
    if (g_beep_left && --g_beep_left == 0)
        TCCR2A &= (uint8_t)~_BV(COM2A0); /* buzzer off */
}

static uint32_t millis(void)
{
    uint32_t v;
    uint8_t s = SREG;
    cli();
    v = g_ms;
    SREG = s;
    return v;
}

/* ------------------------------------------------------------------ levers (INT0, INT1) */
typedef struct {
    uint8_t side;
    uint32_t ms;
} press_t;
static volatile press_t g_press[8];
static volatile uint8_t g_press_head, g_press_tail;
static volatile uint32_t g_last_edge[2];

static void lever_edge(uint8_t side)
{
    uint32_t now = g_ms;
    uint8_t next;
    if (now - g_last_edge[side] < DEBOUNCE_MS)
        return;
    g_last_edge[side] = now;
    next = (uint8_t)((g_press_head + 1) & 7);
    if (next == g_press_tail)
        return; /* 8 presses not yet handled: the loop is stuck; drop rather than corrupt */
    g_press[g_press_head].side = side;
    g_press[g_press_head].ms = now;
    g_press_head = next;
}

ISR(INT0_vect) { lever_edge(0); }
ISR(INT1_vect) { lever_edge(1); }

/* ------------------------------------------------------------------ UART */
static volatile uint8_t g_rx[128];
static volatile uint8_t g_rx_head, g_rx_tail;
static volatile uint8_t g_tx[256];
static volatile uint8_t g_tx_head, g_tx_tail;

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)((g_rx_head + 1) & 127);
    if (next != g_rx_tail) { /* a full buffer drops the byte; the CRC catches the hole */
        g_rx[g_rx_head] = b;
        g_rx_head = next;
    }
}

ISR(USART_UDRE_vect)
{
    if (g_tx_head == g_tx_tail) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = g_tx[g_tx_tail];
    g_tx_tail = (uint8_t)(g_tx_tail + 1);
}

static void uart_tx(void *ctx, const uint8_t *data, uint16_t n)
{
    uint16_t i;
    (void)ctx;
    for (i = 0; i < n; i++) {
        uint8_t next = (uint8_t)(g_tx_head + 1);
        while (next == g_tx_tail) {
        } /* wait for room: the UDRE interrupt drains it */
        g_tx[g_tx_head] = data[i];
        g_tx_head = next;
        UCSR0B |= _BV(UDRIE0);
    }
}

static void uart_init(void)
{
    UCSR0A = _BV(U2X0);
    UBRR0 = 16; /* 16 MHz / (8 * 17) = 117647 baud, +2.1 %: the usual Nano setting */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00); /* 8N1 */
}

/* ------------------------------------------------------------------ HD44780 x2, 4-bit */
/* RS = PB0, E red = PB1, E black = PB2, D4..D7 = PC0..PC3, R/W to GND. */
static void lcd_nibble(uint8_t e_mask, uint8_t nib)
{
    PORTC = (uint8_t)((PORTC & 0xF0) | (nib & 0x0F));
    PORTB |= e_mask;
    _delay_us(1);
    PORTB &= (uint8_t)~e_mask;
    _delay_us(50);
}

static void lcd_write(uint8_t e_mask, uint8_t rs, uint8_t byte)
{
    if (rs)
        PORTB |= _BV(PB0);
    else
        PORTB &= (uint8_t)~_BV(PB0);
    lcd_nibble(e_mask, (uint8_t)(byte >> 4));
    lcd_nibble(e_mask, byte);
    if (!rs && byte < 4)
        _delay_ms(2); /* clear and home are slow */
}

static void lcd_init(void)
{
    const uint8_t both = _BV(PB1) | _BV(PB2);
    _delay_ms(50);
    lcd_nibble(both, 0x3);
    _delay_ms(5);
    lcd_nibble(both, 0x3);
    _delay_us(150);
    lcd_nibble(both, 0x3);
    lcd_nibble(both, 0x2); /* 4-bit mode */
    lcd_write(both, 0, 0x28); /* 2 lines, 5x8 */
    lcd_write(both, 0, 0x0C); /* display on, no cursor */
    lcd_write(both, 0, 0x06); /* entry: increment */
    lcd_write(both, 0, 0x01); /* clear */
}

static void lcd_line(uint8_t e_mask, uint8_t row, const char *text)
{
    uint8_t i;
    lcd_write(e_mask, 0, (uint8_t)(0x80 | (row ? 0x40 : 0x00)));
    for (i = 0; i < 16; i++)
        lcd_write(e_mask, 1, (uint8_t)(*text ? *text++ : ' '));
}

/* The HD44780 has no CJK glyphs: show ASCII as is and each other UTF-8 character as '*'. */
static void ascii_fallback(const char *utf8, char *out, uint8_t cap)
{
    uint8_t n = 0;
    while (*utf8 && n + 1 < cap) {
        uint8_t c = (uint8_t)*utf8;
        if (c < 0x80) {
            out[n++] = (char)c;
            utf8++;
        } else {
            out[n++] = '*';
            utf8++;
            while (((uint8_t)*utf8 & 0xC0) == 0x80)
                utf8++;
        }
    }
    out[n] = 0;
}

static void format_time(uint32_t ms, const xq_side *s, char *out)
{
    uint32_t sec = ms / 1000u;
    uint8_t i = 0;
    uint16_t h = (uint16_t)(sec / 3600u);
    uint8_t m = (uint8_t)((sec / 60u) % 60u), ss = (uint8_t)(sec % 60u);
    memset(out, ' ', 16);
    out[16] = 0;
    if (h) {
        out[i++] = (char)('0' + h % 10);
        out[i++] = ':';
    }
    out[i++] = (char)('0' + m / 10);
    out[i++] = (char)('0' + m % 10);
    out[i++] = ':';
    out[i++] = (char)('0' + ss / 10);
    out[i++] = (char)('0' + ss % 10);
    if (!h && sec < 20) { /* tenths in the last seconds */
        out[i++] = '.';
        out[i++] = (char)('0' + (ms / 100u) % 10u);
    }
    if (s->flagged)
        memcpy(out + 12, "FLAG", 4);
    else if (s->in_byo) {
        out[12] = 'B';
        out[13] = 'Y';
        out[14] = (char)('0' + s->byo_left % 10);
    }
}

/* ------------------------------------------------------------------ buzzer (OC2A = PB3) */
static void beep(uint16_t ms, uint16_t hz)
{
    uint16_t ocr;
    if (hz < 250)
        hz = 250;
    if (hz > 8000)
        hz = 8000;
    ocr = (uint16_t)(F_CPU / (2ul * 64ul * hz) - 1ul); /* toggle at 2*hz with prescaler 64 */
    OCR2A = (uint8_t)(ocr > 255 ? 255 : ocr);
    TCCR2A = _BV(WGM21) | _BV(COM2A0);
    TCCR2B = _BV(CS22); /* /64 */
    cli();
    g_beep_left = ms ? ms : 1;
    sei();
}

/* ------------------------------------------------------------------ main */
static xq_device g_dev;

static uint32_t next_boot_id(void)
{
    uint32_t *addr = (uint32_t *)0;
    uint32_t id = eeprom_read_dword(addr) + 1u; /* a new number every power-up */
    if (id == 0 || id == 0xFFFFFFFFul)
        id = 1;
    eeprom_update_dword(addr, id);
    return id;
}

int main(void)
{
    uint32_t last_lcd = 0, pause_since = 0;
    uint8_t pause_state = 0, pause_fired = 0, last_flag[2] = {0, 0};
    char line[17], text[17];

    DDRB = _BV(PB0) | _BV(PB1) | _BV(PB2) | _BV(PB3);
    DDRC = 0x0F;
    PORTD = _BV(PD2) | _BV(PD3) | _BV(PD4); /* pull-ups on the levers and the pause key */

    TCCR0A = _BV(WGM01); /* CTC, 16 MHz / 64 / 250 = 1 kHz */
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);
    EICRA = _BV(ISC01) | _BV(ISC11); /* falling edges: the lever closes to ground */
    EIMSK = _BV(INT0) | _BV(INT1);
    uart_init();
    lcd_init();
    xq_device_init(&g_dev, 0, next_boot_id(), XQ_EVENT_CAPACITY, NULL, XQ_FIRMWARE_NAME, uart_tx, NULL);
    sei();

    for (;;) {
        uint32_t now;
        uint8_t chunk[16], n = 0, i;

        while (g_rx_tail != g_rx_head && n < sizeof chunk) {
            chunk[n++] = g_rx[g_rx_tail];
            g_rx_tail = (uint8_t)((g_rx_tail + 1) & 127);
        }
        /* presses first, with their interrupt stamps, then everything at "now" */
        while (g_press_tail != g_press_head) {
            press_t p;
            p.side = g_press[g_press_tail].side;
            p.ms = g_press[g_press_tail].ms;
            g_press_tail = (uint8_t)((g_press_tail + 1) & 7);
            xq_device_press(&g_dev, p.side, p.ms);
        }
        now = millis();
        if (n)
            xq_device_receive(&g_dev, chunk, n, now);

        /* pause key, polled with debounce: one toggle per press */
        if ((uint8_t)((PIND & _BV(PD4)) ? 0 : 1) != pause_state) {
            pause_state = (uint8_t)!pause_state;
            pause_since = now;
            pause_fired = 0;
        } else if (pause_state && !pause_fired && now - pause_since >= DEBOUNCE_MS) {
            pause_fired = 1;
            xq_device_pause_button(&g_dev, now);
        }

        xq_device_poll(&g_dev, now);

        for (i = 0; i < 2; i++) {
            if (g_dev.clock.sides[i].flagged && !last_flag[i])
                beep(600, 1000);
            last_flag[i] = g_dev.clock.sides[i].flagged;
        }
        if (g_dev.beep_pending) {
            g_dev.beep_pending = 0;
            beep(g_dev.beep_ms, g_dev.beep_hz);
        }
        if (now - last_lcd >= 100u) { /* redraw both displays ten times a second */
            last_lcd = now;
            for (i = 0; i < 2; i++) {
                const uint8_t e = (uint8_t)(i ? _BV(PB2) : _BV(PB1));
                format_time(g_dev.clock.sides[i].remaining_ms, &g_dev.clock.sides[i], line);
                if (g_dev.clock.running == i && g_dev.clock.state == XQ_RUNNING)
                    line[15] = '<';
                else if (g_dev.clock.state == XQ_PAUSED)
                    line[15] = 'P';
                lcd_line(e, 0, line);
                if (g_dev.display_dirty & (1u << i)) {
                    g_dev.display_dirty &= (uint8_t)~(1u << i);
                    ascii_fallback(g_dev.display[i], text, sizeof text);
                    lcd_line(e, 1, text);
                }
            }
        }
    }
}
