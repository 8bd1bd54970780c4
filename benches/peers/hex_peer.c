/* hex_peer: the complete win/loss table of Hex on the N x N board (N <= 4), by retrograde
 * analysis tier by tier, written plainly in C as the floor retrodb is measured against.
 *
 * Positions: every configuration of the N*N cells (empty, Left, Right) with either player to
 * move, 2 * 3^(N*N) in all. Position i = mover + 2 * config, mover 0 Left and 1 Right,
 * config = sum d_c * 3^c with d 0 empty, 1 Left, 2 Right; cell (r, c) is cell r*N + c.
 * (r, c) touches (r, c+-1), (r+-1, c), (r-1, c+1) and (r+1, c-1). Left joins column 0 to column
 * N-1, Right joins row 0 to row N-1. A position where a player has connected is over: a win for
 * the player to move if that player connected, a loss otherwise. Otherwise a position wins iff
 * some move (claiming an empty cell) leads to a position lost for the opponent.
 *
 * The tiers are the numbers of stones, solved from the full boards down; a tier's positions
 * read only the tier above, so a tier is one parallel loop (OpenMP) over its sets of filled
 * cells. The win tests are one table by set of cells, filled by bitboard flood fills.
 *
 *   gcc -O3 -march=native -fopenmp -o hex_peer hex_peer.c
 *   OMP_NUM_THREADS=T ./hex_peer N [OUT]
 *
 * prints "hex:N positions P win W loss L setup S.SSSs solve T.TTTs". With OUT, writes the table
 * as 2-bit codes (1 win, 2 loss, for the player to move), position i in bits 2*(i%4) of byte
 * i/4. Built with -DREMOTENESS it also finds every position's remoteness (0 when over; a win:
 * 1 + the least over the children lost for the opponent; a loss: 1 + the most over the
 * children), prints a second line "rounds R" (the largest remoteness + 1) and with OUT writes
 * one byte a position, in position order, to OUT.rem. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN 1u
#define LOSS 2u

static int n, cells;
static uint32_t full;       /* every cell */
static uint32_t pow3[16];   /* 3^c */
static uint32_t *tern;      /* tern[S] = sum of 3^c over the cells c of S */
static uint8_t *connects;   /* bit 0: S joins Left's sides; bit 1: S joins Right's sides */
static uint8_t *val;        /* per configuration: bits 0-1 Left to move, bits 2-3 Right */
#ifdef REMOTENESS
static uint8_t *rem;        /* per position */
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *alloc(size_t bytes) {
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p) {
    fprintf(stderr, "hex_peer: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

/* Every cell touching a cell of s. */
static uint32_t neighbours(uint32_t s) {
  uint32_t first = 0, last;
  for (int r = 0; r < n; r++) first |= 1u << (r * n);
  last = first << (n - 1);
  uint32_t not_first = full & ~first, not_last = full & ~last;
  return (((s << 1) & not_first) | ((s >> 1) & not_last) | (s << n) | (s >> n) |
          ((s >> (n - 1)) & not_first) | ((s << (n - 1)) & not_last)) &
         full;
}

/* Whether the cells of set join start to goal: a flood from the start cells inside set. */
static int joins(uint32_t set, uint32_t start, uint32_t goal) {
  uint32_t reach = set & start;
  for (;;) {
    if (reach & goal) return 1;
    uint32_t next = reach | (neighbours(reach) & set);
    if (next == reach) return 0;
    reach = next;
  }
}

static void setup(void) {
  uint32_t col0 = 0, row0 = 0;
  for (int r = 0; r < n; r++) col0 |= 1u << (r * n);
  for (int c = 0; c < n; c++) row0 |= 1u << c;
  uint32_t colN = col0 << (n - 1), rowN = row0 << (n * (n - 1));
  uint32_t sets = 1u << cells;
  pow3[0] = 1;
  for (int c = 1; c < cells; c++) pow3[c] = 3 * pow3[c - 1];
  tern = alloc(sizeof *tern * sets);
  connects = alloc(sets);
  for (uint32_t s = 1; s < sets; s++) {
    int c = __builtin_ctz(s);
    tern[s] = tern[s & (s - 1)] + pow3[c];
    connects[s] = (uint8_t)(joins(s, col0, colN) | (joins(s, row0, rowN) << 1));
  }
}

/* Solves the configurations whose filled cells are f (every child already solved). */
static void solve_filled(uint32_t f) {
  uint32_t empty = full & ~f;
  uint32_t l = 0;
  do { /* every subset l of f: Left's cells; the rest of f is Right's */
    uint32_t r = f & ~l;
    uint32_t cfg = tern[l] + 2 * tern[r];
    uint8_t v;
#ifdef REMOTENESS
    uint8_t rl = 0, rr = 0;
#endif
    if (connects[l] & 1) {
      v = (uint8_t)(WIN | LOSS << 2);
    } else if (connects[r] & 2) {
      v = (uint8_t)(LOSS | WIN << 2);
    } else {
      /* Left to move: a child is cfg + 3^e, read with Right to move (bits 2-3). */
      uint32_t vl = LOSS, vr = LOSS;
#ifdef REMOTENESS
      unsigned wl = 255, ll = 0, wr = 255, lr = 0;
      for (uint32_t m = empty; m; m &= m - 1) {
        uint32_t e = (uint32_t)__builtin_ctz(m);
        uint32_t cl = cfg + pow3[e], cr = cfg + 2 * pow3[e];
        unsigned a = rem[2 * cl + 1], b = rem[2 * cr];
        if (((val[cl] >> 2) & 3) == LOSS) {
          vl = WIN;
          if (a < wl) wl = a;
        } else if (a > ll) {
          ll = a;
        }
        if ((val[cr] & 3) == LOSS) {
          vr = WIN;
          if (b < wr) wr = b;
        } else if (b > lr) {
          lr = b;
        }
      }
      rl = (uint8_t)(1 + (vl == WIN ? wl : ll));
      rr = (uint8_t)(1 + (vr == WIN ? wr : lr));
#else
      for (uint32_t m = empty; m; m &= m - 1) {
        if (((val[cfg + pow3[__builtin_ctz(m)]] >> 2) & 3) == LOSS) {
          vl = WIN;
          break;
        }
      }
      for (uint32_t m = empty; m; m &= m - 1) {
        if ((val[cfg + 2 * pow3[__builtin_ctz(m)]] & 3) == LOSS) {
          vr = WIN;
          break;
        }
      }
#endif
      v = (uint8_t)(vl | vr << 2);
    }
    val[cfg] = v;
#ifdef REMOTENESS
    rem[2 * (size_t)cfg] = rl;
    rem[2 * (size_t)cfg + 1] = rr;
#endif
    l = (l - f) & f;
  } while (l);
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 4) {
    fprintf(stderr, "usage: hex_peer N [OUT]   (1 <= N <= 4)\n");
    return 2;
  }
  n = atoi(argv[1]);
  cells = n * n;
  full = (uint32_t)((1ull << cells) - 1);

  double t0 = now();
  setup();
  uint32_t configs = 1;
  for (int c = 0; c < cells; c++) configs *= 3;
  val = alloc(configs);
#ifdef REMOTENESS
  rem = alloc(2 * (size_t)configs);
#endif
  /* The sets of filled cells, grouped by size: one tier a group. */
  uint32_t sets = 1u << cells;
  uint32_t *by_size = alloc(sizeof *by_size * sets);
  uint32_t start[18] = {0};
  for (uint32_t s = 0; s < sets; s++) start[__builtin_popcount(s) + 1]++;
  for (int k = 0; k <= cells; k++) start[k + 1] += start[k];
  {
    uint32_t fill[17];
    memcpy(fill, start, sizeof fill);
    for (uint32_t s = 0; s < sets; s++) by_size[fill[__builtin_popcount(s)]++] = s;
  }
  double t1 = now();

  for (int k = cells; k >= 0; k--) {
    long lo = start[k], hi = start[k + 1];
#pragma omp parallel for schedule(dynamic, 16)
    for (long i = lo; i < hi; i++) solve_filled(by_size[i]);
  }
  double t2 = now();

  uint64_t win = 0, loss = 0;
  for (uint32_t c = 0; c < configs; c++) {
    uint8_t v = val[c];
    win += ((v & 3) == WIN) + (((v >> 2) & 3) == WIN);
    loss += ((v & 3) == LOSS) + (((v >> 2) & 3) == LOSS);
  }
  printf("hex:%d positions %llu win %llu loss %llu setup %.3fs solve %.3fs\n", n,
         2ull * configs, (unsigned long long)win, (unsigned long long)loss, t1 - t0, t2 - t1);
#ifdef REMOTENESS
  unsigned top = 0;
  for (size_t i = 0; i < 2 * (size_t)configs; i++)
    if (rem[i] > top) top = rem[i];
  printf("rounds %u\n", top + 1);
#endif
  fflush(stdout);

  if (argc == 3) {
    size_t bytes = (2 * (size_t)configs + 3) / 4;
    uint8_t *out = alloc(bytes);
    /* Configuration c holds positions 2c and 2c+1: bits 4*(c%2) of byte c/2. */
    for (uint32_t c = 0; c < configs; c++) out[c / 2] |= (uint8_t)(val[c] << (4 * (c & 1)));
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(out, 1, bytes, f) != bytes || fclose(f) != 0) {
      perror(argv[2]);
      return 1;
    }
    free(out);
#ifdef REMOTENESS
    size_t len = strlen(argv[2]);
    char *path = alloc(len + 5);
    memcpy(path, argv[2], len);
    memcpy(path + len, ".rem", 5);
    f = fopen(path, "wb");
    if (!f || fwrite(rem, 1, 2 * (size_t)configs, f) != 2 * (size_t)configs || fclose(f) != 0) {
      perror(path);
      return 1;
    }
    free(path);
#endif
  }
  return 0;
}
