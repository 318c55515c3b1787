// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf top`: options, the refresh loop, the keys and the terminal. */
#define _GNU_SOURCE /* pipe2 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/log.h"
#include "base/cli.h"
#include "base/output.h"
#include "instance/opt_instance.h"
#include "instance/pins.h"
#include "instance/readers.h"
#include "base/units.h"
#include "views/top.h"
#include "views/top_render.h"
#include "views/top_view.h"

#define DEFAULT_INTERVAL_MS 1000
#define MIN_INTERVAL_MS 100
#define MAX_INTERVAL_MS 60000
/* How long a wait for a key may last before the loop looks at the signal
 * flag again (ncurses may restart its wait after an interrupted poll). */
#define KEY_WAIT_MAX_MS 200
#define ONCE_ROWS 1000

/* What + and - step through. */
static const unsigned interval_steps[] = {
	100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000
};
#define N_STEPS (sizeof(interval_steps) / sizeof(interval_steps[0]))

struct top_opts {
	const char *instance;
	__u32 interval_ms;
	bool once;
};

#define F(f) XL_FIELD(struct top_opts, f)
static const struct xl_opt top_opts[] = {
	XL_OPT_INSTANCE(struct top_opts, instance, "instance name (default: default)"),
	{ "interval", 0, XL_T_UINT, F(interval_ms), "MS", "refresh every MS milliseconds, 100..60000 "
	  "(default 1000);\nrates are counter differences between two refreshes",
	  .min = MIN_INTERVAL_MS, .max = MAX_INTERVAL_MS },
	{ "once", 0, XL_T_FLAG, F(once), NULL, "read twice, --interval apart, print that frame "
	  "as plain text\nand exit (no terminal needed; 3 if not loaded)" },
	XL_OPT_HELP, XL_OPT_END
};
static const struct top_opts top_defaults = {
	.instance = "default", .interval_ms = DEFAULT_INTERVAL_MS,
};
static const char top_intro[] =
	"A live view of an instance, refreshed in place. Leaf mode: uplinks (Mbit/s,\n"
	"capacity, share of all uplinks' transmit, flowlets, moves and refused moves\n"
	"per second, link state), ports (rx/tx packets and Mbit/s, CE marks and\n"
	"drops per second with the most frequent drop reason, queue length now) and\n"
	"the busiest flows. Host mode: DCQCN's CE, CNPs sent and received per\n"
	"second, RP flows (rate sent, Rc, Rt, alpha) and NP flows (CE and CNPs per\n"
	"second). Keys: q quit, p pause, + longer interval, - shorter, s the flow\n"
	"order. An instance that is not loaded is shown so, and read again every\n"
	"interval until it is. Exit status: 0, 1 error, 2 bad usage, 3 not loaded\n"
	"(--once), 128 + signal number after SIGINT or SIGTERM.";

struct top {
	const struct xl_readers *readers;
	struct top_frame_info info;
	struct top_sample prev, cur;
	struct top_view view;
	struct top_screen scr;
	char error[200];
	int err_fd;  /* stderr's messages while the screen is ours, or -1 */
	int saved_stderr;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static __u64 now_ms(void)
{
	return xl_monotonic_ns() / 1000000;
}

/* The last line the readers wrote to stderr while the screen was ours. */
static void collect_errors(struct top *t)
{
	char buf[1024];
	ssize_t n;

	if (t->err_fd < 0)
		return;
	while ((n = read(t->err_fd, buf, sizeof(buf) - 1)) > 0) {
		char *end, *start;

		buf[n] = 0;
		end = buf + n;
		while (end > buf && end[-1] == '\n')
			*--end = 0;
		start = strrchr(buf, '\n');
		start = start ? start + 1 : buf;
		if (*start)
			snprintf(t->error, sizeof(t->error), "%.*s",
				 (int)sizeof(t->error) - 1, start);
	}
}

/* Read the instance again; the frame becomes the last read and this one. */
static int refresh_view(struct top *t)
{
	struct top_sample s;
	int ret = top_sample_read(&s, t->readers, t->info.instance);

	t->error[0] = 0;
	collect_errors(t);
	if (ret < 0) {
		/* keep the last good frame on screen, and say why it is old */
		t->info.error = t->error[0] ? t->error : "reading the instance failed";
		return -1;
	}
	t->info.error = NULL;
	top_sample_free(&t->prev);
	t->prev = t->cur;
	t->cur = s;
	top_view_free(&t->view);
	if (top_view_build(&t->view, &t->prev, &t->cur, t->info.sort)) {
		t->info.error = "out of memory";
		return -1;
	}
	return 0;
}

/* --once: one frame over one interval, as text on stdout. */
static int run_once(struct top *t)
{
	struct timespec ts = { t->info.interval_ms / 1000,
			       (t->info.interval_ms % 1000) * 1000000L };
	int ret;

	for (int i = 0; i < 2; i++) {
		if (i)
			nanosleep(&ts, NULL); /* the interval the rates cover */
		ret = refresh_view(t);
		if (ret)
			return 1;
		if (t->cur.role == XL_INST_ABSENT) {
			xl_err("instance '%s' is not loaded", t->info.instance);
			return XL_EXIT_NOT_LOADED;
		}
	}
	t->scr.rows = ONCE_ROWS;
	if (top_render(&t->scr, &t->view, &t->info))
		return 1;
	for (int i = 0; i < t->scr.n; i++)
		printf("%s\n", t->scr.lines[i].text);
	return 0;
}

static void draw(struct top *t)
{
	t->scr.rows = LINES;
	if (top_render(&t->scr, &t->view, &t->info))
		return;
	erase();
	for (int i = 0; i < t->scr.n && i < LINES; i++) {
		static const attr_t style_attr[] = {
			[TOP_TEXT] = A_NORMAL,
			[TOP_BANNER] = A_REVERSE | A_BOLD,
			[TOP_SECTION] = A_BOLD,
			[TOP_COLUMNS] = A_UNDERLINE,
			[TOP_ALERT] = A_BOLD,
		};
		attr_t a = style_attr[t->scr.lines[i].style];

		if (t->scr.lines[i].style == TOP_ALERT && has_colors())
			a |= COLOR_PAIR(1);
		attrset(a);
		mvaddnstr(i, 0, t->scr.lines[i].text, COLS);
	}
	attrset(A_NORMAL);
	refresh();
}

static unsigned step_interval(unsigned ms, int dir)
{
	if (dir > 0) {
		for (size_t i = 0; i < N_STEPS; i++)
			if (interval_steps[i] > ms)
				return interval_steps[i];
		return ms;
	}
	for (size_t i = N_STEPS; i-- > 0;)
		if (interval_steps[i] < ms)
			return interval_steps[i];
	return ms;
}

/* While the screen is ours, what the readers print to stderr would
 * scribble over it: it goes to a pipe, and the last line to the screen. */
static void capture_stderr(struct top *t)
{
	int fds[2];

	t->err_fd = t->saved_stderr = -1;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC))
		return;
	fflush(stderr);
	t->saved_stderr = dup(STDERR_FILENO);
	if (t->saved_stderr < 0 || dup2(fds[1], STDERR_FILENO) < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	close(fds[1]);
	t->err_fd = fds[0];
}

static void release_stderr(struct top *t)
{
	if (t->saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(t->saved_stderr, STDERR_FILENO);
	close(t->saved_stderr);
	close(t->err_fd);
	t->err_fd = t->saved_stderr = -1;
}

static int run_live(struct top *t)
{
	struct sigaction sa = { .sa_handler = on_signal };
	SCREEN *screen;
	__u64 due;
	bool quit = false;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		xl_err("needs a terminal (for plain text, use --once)");
		return 1;
	}
	/* before the screen is set up: ncurses keeps handlers it finds, and
	 * the loop ends on the flag, restoring the terminal on the way out */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* newterm, not initscr: an unknown TERM is an error to report, not
	 * an exit inside ncurses */
	screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		xl_err("cannot use terminal type '%s'",
		       getenv("TERM") ? getenv("TERM") : "(unset)");
		return 1;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
	}
	capture_stderr(t);
	refresh_view(t);
	draw(t);
	due = now_ms() + t->info.interval_ms;
	while (!quit && !stop_signal) {
		__u64 now = now_ms();
		int wait, ch;

		if (!t->info.paused && now >= due) {
			refresh_view(t);
			draw(t);
			due = now + t->info.interval_ms;
			continue;
		}
		wait = t->info.paused ? KEY_WAIT_MAX_MS : (int)(due - now);
		timeout(wait < KEY_WAIT_MAX_MS ? wait : KEY_WAIT_MAX_MS);
		ch = getch();
		switch (ch) {
		case 'q': case 'Q':
			quit = true;
			break;
		case 'p': case 'P': case ' ':
			t->info.paused = !t->info.paused;
			/* the next frame's rates cover the pause too: they
			 * divide by the time between the reads */
			due = now_ms() + t->info.interval_ms;
			draw(t);
			break;
		case '+': case '=':
		case '-': case '_': {
			unsigned was = t->info.interval_ms;

			t->info.interval_ms = step_interval(was, ch == '+' || ch == '=' ? 1 : -1);
			due = due - was + t->info.interval_ms;
			draw(t);
			break;
		}
		case 's': case 'S':
			t->info.sort = (t->info.sort + 1) % TOP_SORTS;
			top_view_free(&t->view);
			if (top_view_build(&t->view, &t->prev, &t->cur, t->info.sort))
				t->info.error = "out of memory";
			draw(t);
			break;
		case KEY_RESIZE:
			draw(t);
			break;
		default:
			break;
		}
	}
	endwin();
	delscreen(screen);
	release_stderr(t);
	if (t->error[0])
		xl_err("last message: %s", t->error);
	return stop_signal ? 128 + stop_signal : 0;
}

static int top_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct top_opts *o = opts;
	const struct xl_readers *readers = ctx->env;
	struct top t = {
		.readers = readers,
		.info = { .instance = o->instance, .interval_ms = o->interval_ms, .once = o->once },
		.err_fd = -1, .saved_stderr = -1,
	};
	int ret;

	if (readers->privileged() || xl_ensure_bpffs())
		return 1;
	ret = o->once ? run_once(&t) : run_live(&t);
	top_view_free(&t.view);
	top_sample_free(&t.prev);
	top_sample_free(&t.cur);
	top_screen_free(&t.scr);
	return ret;
}

const struct xl_cmd xl_top_cmd = {
	.name = "top", .summary = "a live view of an instance, refreshed in place ('xdpleaf top --help')",
	.intro = top_intro,
	.opts = top_opts, XL_CMD_OPTS(struct top_opts, &top_defaults), .run = top_run,
};
