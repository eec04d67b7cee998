// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON agentmmctl writes (status, show, events --json) for names a
 * sandbox chooses: every control as \u00HH (C0, DEL, C1), the bidi
 * controls and separators as \uHHHH, a byte that is not UTF-8 as \udcHH,
 * so that a JSON parser gives back every name exactly and two names never
 * print the same. The exact text here; Python's parser on it
 * (check_json.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "unit.h"

static const char *js(const char *s)
{
	static char buf[4096];

	amm_escape(buf, sizeof(buf), s, AMM_ESC_JSON);
	return buf;
}

#define EXPECT_JSON(in, want)						\
	do {								\
		const char *_got = js(in);				\
		if (strcmp(_got, want)) {				\
			printf("  %s:%d: JSON of %s is \"%s\", expected \"%s\"\n", \
			       __FILE__, __LINE__, #in, _got, want);	\
			unit_case_failed = 1;				\
		}							\
	} while (0)

TEST(json_c1)
{
	EXPECT_JSON("a\xc2\x9b" "b", "a\\u009bb");
	EXPECT_JSON("\xc2\x80", "\\u0080");
	EXPECT_JSON("\xc2\x85", "\\u0085");
	EXPECT_JSON("\xc2\x9f", "\\u009f");
	/* U+00A0 and up are printable: as they are */
	EXPECT_JSON("\xc2\xa0\xc3\xa9", "\xc2\xa0\xc3\xa9");
}

TEST(json_del_and_c0)
{
	EXPECT_JSON("x\x7fy", "x\\u007fy");
	EXPECT_JSON("\x01\x1b[2J\r", "\\u0001\\u001b[2J\\u000d");
	EXPECT_JSON("\x08\x0c\x1f", "\\u0008\\u000c\\u001f");
	EXPECT_JSON("a\nb\tc", "a\\nb\\tc");
	EXPECT_JSON("q\"b\\s/", "q\\\"b\\\\s/");
}

TEST(json_bidi_and_separators)
{
	EXPECT_JSON("evil\xe2\x80\xaegnp.exe", "evil\\u202egnp.exe");
	EXPECT_JSON("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad",
		    "\\u202a\\u202b\\u202c\\u202d");
	EXPECT_JSON("\xd8\x9c", "\\u061c");
	EXPECT_JSON("\xe2\x80\x8e\xe2\x80\x8f", "\\u200e\\u200f");
	EXPECT_JSON("\xe2\x81\xa6" "a\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
		    "\\u2066a\\u2067\\u2068\\u2069");
	EXPECT_JSON("l\xe2\x80\xa8l\xe2\x80\xa9", "l\\u2028l\\u2029");
	/* neighbours that steer nothing stay */
	EXPECT_JSON("\xe2\x80\x94\xe2\x81\xa5\xf0\x9f\x98\x80",
		    "\xe2\x80\x94\xe2\x81\xa5\xf0\x9f\x98\x80");
}

TEST(json_invalid_bytes)
{
	EXPECT_JSON("\xff", "\\udcff");
	EXPECT_JSON("a\xc3(", "a\\udcc3(");
	EXPECT_JSON("\x80", "\\udc80");
	/* overlong, surrogate, beyond U+10FFFF, cut short */
	EXPECT_JSON("\xc0\xaf", "\\udcc0\\udcaf");
	EXPECT_JSON("\xed\xa0\x80", "\\udced\\udca0\\udc80");
	EXPECT_JSON("\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80");
	EXPECT_JSON("\xe2\x80", "\\udce2\\udc80");
	/* a lone C1 byte is not the character */
	EXPECT_JSON("\x9b", "\\udc9b");
}

/* Names that once printed the same (each byte as the text \\xHH) do not. */
TEST(json_no_collision)
{
	static const char *const names[] = {
		"sb\xc2\x9b",		/* U+009B */
		"sb\\x9b",		/* the text \x9b */
		"sb\\xc2\\x9b",		/* the text \xc2\x9b */
		"sb\x9b",		/* the byte 0x9b alone, not UTF-8 */
		"sb\\udc9b",		/* the text \udc9b */
		"sb\\u009b",		/* the text \u009b */
	};
	char out[6][64];
	unsigned int i, j;

	EXPECT_JSON("sb\xc2\x9b", "sb\\u009b");
	EXPECT_JSON("sb\\x9b", "sb\\\\x9b");
	EXPECT_JSON("sb\\xc2\\x9b", "sb\\\\xc2\\\\x9b");
	EXPECT_JSON("sb\x9b", "sb\\udc9b");
	EXPECT_JSON("sb\\udc9b", "sb\\\\udc9b");
	for (i = 0; i < 6; i++)
		snprintf(out[i], sizeof(out[i]), "%s", js(names[i]));
	for (i = 0; i < 6; i++)
		for (j = i + 1; j < 6; j++)
			EXPECT_TRUE(strcmp(out[i], out[j]) != 0);
}

/* amm_json_str() (what agentmmctl calls) and a 255-byte hostile name. */
TEST(json_str_long)
{
	char name[256], *p = NULL;
	const char *q;
	size_t n = 0, i;
	FILE *f = open_memstream(&p, &n);

	for (i = 0; i + 2 <= 254; i += 2) {
		name[i] = '\xc2';
		name[i + 1] = '\x9b';
	}
	name[i++] = '\xff';
	name[i] = 0;
	EXPECT_EQ(strlen(name), 255);
	EXPECT_TRUE(f != NULL);
	if (!f)
		return;
	amm_json_str(f, name);
	fclose(f);
	/* 127 x \u009b, one \udcff, in quotes: nothing cut */
	EXPECT_EQ(n, 2 + 128 * 6);
	for (i = 0, q = p + 1; !strncmp(q, "\\u009b", 6); q += 6)
		i++;
	EXPECT_EQ(i, 127);
	EXPECT_TRUE(!strcmp(q, "\\udcff\""));
	free(p);
}

/* Python's json module reads every one of these back byte for byte. */
TEST(json_python_round_trip)
{
	static const char *const names[] = {
		"agent.slice/sb1", "a\xc2\x9b" "b", "a\\x9b", "\xc2\x80\xc2\x9f",
		"x\x7f\x01\x1b\r\n\t\"\\", "\xe2\x80\xae\xd8\x9c\xe2\x81\xa9",
		"\xe2\x80\xa8\xe2\x80\xa9", "caf\xc3\xa9 \xf0\x9f\x98\x80",
		"\xff\xfe", "a\xc3(", "\xed\xa0\x80", "\xc0\xaf", "\x9b",
		"\xf4\x90\x80\x80", "\xe2\x80", "sb\\udc9b", "sb\\u009b",
	};
	char path[] = "/tmp/amm-json-XXXXXX", cmd[256];
	unsigned int i;
	size_t k;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	EXPECT_TRUE(f != NULL);
	if (!f)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		for (k = 0; names[i][k]; k++)
			fprintf(f, "%02x", (unsigned char)names[i][k]);
		fputc('\t', f);
		amm_json_str(f, names[i]);
		fputc('\n', f);
	}
	EXPECT_EQ(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s strings %s",
		 CHECK_JSON, path);
	fflush(stdout);	/* its report after ours */
	EXPECT_EQ(system(cmd), 0);
	unlink(path);
}

int main(void)
{
	return unit_main();
}
