/* A minimal Perudo Arena bot in C, behind the JSON-lines bridge (arena.kit.bridge).
 *
 * It reads one JSON object per line on stdin and answers each "request" with one JSON line
 * on stdout, flushed at once (a buffered answer is a timeout); debug output goes to stderr,
 * never stdout (a stray line there shifts every later answer). It needs no JSON library: a
 * small scanner walks the request's top level and reads the few fields it uses, skipping
 * every other value whole, so that a name found deeper (ruleset.palifico, results[].bids)
 * is never taken for the top-level one. A bot that needs more fields may link a library
 * instead, such as cJSON (https://github.com/DaveGamble/cJSON): two files to copy in.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DICE 64

struct request {
    char type[16], kind[16], id[24];   /* the id is copied as its digits: echoed exactly */
    int dice[MAX_DICE], ndice;         /* my_dice */
    int floor[6], nfloor;              /* min_count, faces 1..6 */
    int bid_count, bid_face;           /* the standing bid, 0 0 when none */
    int dudo_allowed, palifico, dice_in_play;
    int fault;                         /* a game_over with a "fault" for this bot */
};

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Past one JSON value of any kind, nested ones included; NULL on a malformed line. */
static const char *skip(const char *p) {
    int depth = 0;
    p = ws(p);
    do {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1]) p++;
            if (!*p) return NULL;
            p++;
        } else if (*p == '{' || *p == '[') {
            depth++, p++;
        } else if (*p == '}' || *p == ']') {
            depth--, p++;
        } else if (*p == ',' || *p == ':' || *p == ' ') {
            p++;
        } else if (*p) {
            while (*p && !strchr(",:]} \t\r\n", *p)) p++;
        } else {
            return NULL;
        }
        p = ws(p);
    } while (depth > 0);
    return p;
}

/* A string value into out (escapes kept as they are: the words read here have none). */
static const char *text(const char *p, char *out, size_t size) {
    size_t n = 0;
    p = ws(p);
    if (*p != '"') return skip(p);
    for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1]) p++;
        if (n + 1 < size) out[n++] = *p;
    }
    out[n] = '\0';
    return *p ? p + 1 : NULL;
}

static const char *number(const char *p, int *out) {
    p = ws(p);
    *out = atoi(p);
    return skip(p);
}

/* An array of numbers; returns past it, the count in *n (at most max kept). */
static const char *numbers(const char *p, int *out, int max, int *n) {
    p = ws(p);
    *n = 0;
    if (*p != '[') return skip(p);
    for (p = ws(p + 1); p && *p != ']'; p = ws(p)) {
        int value;
        p = number(p, &value);
        if (*n < max) out[(*n)++] = value;
        if (p && *p == ',') p++;
    }
    return p ? p + 1 : NULL;
}

/* Calls field(key, value, ctx) for each key of the object at p; returns past the object. */
typedef const char *(*field_fn)(const char *key, const char *value, void *ctx);
static const char *object(const char *p, field_fn field, void *ctx) {
    char key[32];
    p = ws(p);
    if (*p != '{') return skip(p);
    for (p = ws(p + 1); p && *p != '}'; p = ws(p)) {
        p = text(p, key, sizeof key);
        if (!p || *(p = ws(p)) != ':') return NULL;
        p = field(key, p + 1, ctx);
        if (p && *(p = ws(p)) == ',') p++;
    }
    return p ? p + 1 : NULL;
}

static const char *bid_field(const char *key, const char *value, void *ctx) {
    struct request *r = ctx;
    if (!strcmp(key, "count")) return number(value, &r->bid_count);
    if (!strcmp(key, "face")) return number(value, &r->bid_face);
    return skip(value);
}

static const char *request_field(const char *key, const char *v, void *ctx) {
    struct request *r = ctx;
    if (!strcmp(key, "type")) return text(v, r->type, sizeof r->type);
    if (!strcmp(key, "kind")) return text(v, r->kind, sizeof r->kind);
    if (!strcmp(key, "my_dice")) return numbers(v, r->dice, MAX_DICE, &r->ndice);
    if (!strcmp(key, "min_count")) return numbers(v, r->floor, 6, &r->nfloor);
    if (!strcmp(key, "dice_in_play")) return number(v, &r->dice_in_play);
    if (!strcmp(key, "dudo_allowed")) return r->dudo_allowed = *ws(v) == 't', skip(v);
    if (!strcmp(key, "palifico")) return r->palifico = *ws(v) == 't', skip(v);
    if (!strcmp(key, "fault")) return r->fault = 1, skip(v);
    if (!strcmp(key, "request_id")) {
        const char *end = skip(v);
        size_t n = end ? (size_t)(end - ws(v)) : 0;
        if (n >= sizeof r->id) n = sizeof r->id - 1;
        memcpy(r->id, ws(v), n);
        while (n && strchr(" ,}", r->id[n - 1])) n--;
        r->id[n] = '\0';
        return end;
    }
    if (!strcmp(key, "bids")) { /* an array of {seat, count, face}: the last is standing */
        const char *p = ws(v);
        if (*p != '[') return skip(p);
        for (p = ws(p + 1); p && *p != ']'; p = ws(p)) {
            p = object(p, bid_field, r);
            if (p && *(p = ws(p)) == ',') p++;
        }
        return p ? p + 1 : NULL;
    }
    return skip(v);
}

/* How many of my dice count for face: pacos (1s) are wild, but not in palifico. */
static int matches(const struct request *r, int face) {
    int n = 0;
    for (int i = 0; i < r->ndice; i++)
        n += r->dice[i] == face || (r->dice[i] == 1 && face != 1 && !r->palifico);
    return n;
}

/* The same strategy as the other minimal bots: dudo when the standing bid claims more dice
 * than expected, else the smallest legal bid on the face held most. */
static void decide(const struct request *r) {
    if (!strcmp(r->kind, "calza_offer")) {
        printf("{\"request_id\":%s,\"action\":\"pass\"}\n", r->id);
        return;
    }
    if (r->dudo_allowed && r->bid_face) {
        double per = (!r->palifico && r->bid_face != 1) ? 3.0 : 6.0;
        double expect = matches(r, r->bid_face) + (r->dice_in_play - r->ndice) / per;
        if (r->bid_count > expect) {
            printf("{\"request_id\":%s,\"action\":\"dudo\"}\n", r->id);
            return;
        }
    }
    int best = 0, most = -1;
    for (int face = 1; face <= 6 && face <= r->nfloor; face++) {
        if (r->floor[face - 1] > 0 && matches(r, face) >= most) best = face, most = matches(r, face);
    }
    if (!best) /* no legal raise is left */
        printf("{\"request_id\":%s,\"action\":\"dudo\"}\n", r->id);
    else
        printf("{\"request_id\":%s,\"action\":\"bid\",\"count\":%d,\"face\":%d}\n", r->id,
               r->floor[best - 1], best);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        struct request r;
        memset(&r, 0, sizeof r);
        if (!object(line, request_field, &r)) {
            fprintf(stderr, "cannot read the line: %s", line);
            continue;
        }
        if (!strcmp(r.type, "request")) {
            decide(&r);
            fflush(stdout); /* at once: an answer left in the buffer is a timeout */
        } else if (!strcmp(r.type, "game_over") && r.fault) {
            fprintf(stderr, "fault in this game: %s", line);
        }
    }
    free(line);
    return 0;
}
