/* digraph_queue: the textbook sequential retrograde solver for the token game on a digraph,
 * written plainly in C as the floor retrodb is measured against.
 *
 * A token sits on a vertex; a move slides it along an out-edge; the player who cannot move
 * loses. Every vertex id from 0 to the largest id in the file is a vertex; one without
 * out-edges (including an id no edge touches) is lost for the player to move. The solver keeps
 * an out-degree counter per vertex and the reverse adjacency in CSR form, starts a FIFO queue
 * with the vertices without moves, and labels the predecessors of each vertex it takes out: a
 * predecessor of a lost vertex wins, a predecessor whose moves all lead to won vertices loses.
 * The vertices never labelled are draws. A repeated edge is one move listed twice.
 *
 *   gcc -O3 -march=native -o digraph_queue digraph_queue.c
 *   ./digraph_queue EDGEFILE [OUT]
 *
 * EDGEFILE: one edge "u v" a line (ids below 4294967295, spaces or tabs between); "#" starts a
 * comment to the end of the line; blank lines and "\r\n" are fine. Prints
 * "vertices N edges M win W loss L draw D parse P.PPPs solve S.SSSs (X.X M edges/s)", where parse
 * is reading the file into an edge list and solve is the counters, the reverse graph and the
 * queue. With OUT, writes the values as 2-bit codes (1 win, 2 loss, 3 draw, for the player to
 * move), vertex v in bits 2*(v%4) of byte v/4.
 *
 *   ./digraph_queue --gen N M SEED OUT SINKPCT
 *
 * writes M random edges over the vertices 0..N-1 to OUT (a comment line first, then "u v" lines):
 * every edge's head is uniform over all vertices, its tail uniform over the vertices with
 * id % 100 >= SINKPCT, so the vertices with id % 100 < SINKPCT have no out-edge. The generator
 * is xorshift64* seeded by splitmix64(SEED): the same arguments write the same file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN 1
#define LOSS 2
#define DRAW 3

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *grow(void *p, size_t bytes) {
  p = realloc(p, bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "digraph_queue: out of memory (%zu bytes)\n", bytes);
    exit(1);
  }
  return p;
}

static void fail(const char *path, uint64_t line, const char *what) {
  fprintf(stderr, "digraph_queue: %s:%" PRIu64 ": %s\n", path, line, what);
  exit(1);
}

/* ---- the solver ---- */

static int solve_file(const char *path, const char *out_path) {
  double t0 = now();
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  /* The file is read in blocks; a line split across two blocks is carried over. */
  size_t cap = 1 << 24, have = 0;
  char *buf = grow(NULL, cap + 1);
  uint32_t *src = NULL, *dst = NULL;
  size_t edges = 0, edge_cap = 0;
  uint64_t line = 0, top = 0;
  int eof = 0;
  while (!eof) {
    size_t got = fread(buf + have, 1, cap - have, f);
    if (got < cap - have) {
      if (ferror(f)) {
        perror(path);
        return 1;
      }
      eof = 1;
    }
    have += got;
    size_t end = have;
    if (!eof) { /* up to the last newline; the rest waits for the next block */
      while (end > 0 && buf[end - 1] != '\n') end--;
      if (end == 0) { /* one line longer than the block: a bigger block */
        cap *= 2;
        buf = grow(buf, cap + 1);
        continue;
      }
    }
    if (eof) buf[end] = '\n'; /* a last line without its newline ends here */
    char *p = buf, *stop = buf + end;
    while (p < stop) {
      line++;
      uint64_t word[2];
      int words = 0;
      for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r') p++;
        if (*p == '\n' || *p == '#') break;
        if (*p < '0' || *p > '9') fail(path, line, "not a vertex id");
        uint64_t x = 0;
        while (*p >= '0' && *p <= '9') {
          x = 10 * x + (uint64_t)(*p++ - '0');
          if (x >= UINT32_MAX) fail(path, line, "vertex id out of range (at most 4294967294)");
        }
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '#')
          fail(path, line, "not a vertex id");
        if (words == 2) fail(path, line, "more than two vertex ids");
        word[words++] = x;
      }
      while (*p != '\n') p++; /* the comment, if any */
      p++;
      if (words == 0) continue;
      if (words == 1) fail(path, line, "an edge needs two vertex ids");
      if (edges == edge_cap) {
        edge_cap = edge_cap ? 2 * edge_cap : 1 << 20;
        src = grow(src, edge_cap * sizeof *src);
        dst = grow(dst, edge_cap * sizeof *dst);
      }
      src[edges] = (uint32_t)word[0];
      dst[edges] = (uint32_t)word[1];
      edges++;
      if (word[0] > top) top = word[0];
      if (word[1] > top) top = word[1];
    }
    memmove(buf, buf + end, have - end);
    have -= end;
  }
  fclose(f);
  free(buf);
  if (edges == 0) {
    fprintf(stderr, "digraph_queue: %s: no edge\n", path);
    return 1;
  }
  size_t n = (size_t)top + 1;
  double t1 = now();

  /* Out-degree counters, and the reverse adjacency: pred[first[v] .. first[v+1]] are the
   * tails of the edges into v. */
  uint32_t *deg = calloc(n, sizeof *deg);
  size_t *first = calloc(n + 1, sizeof *first);
  uint32_t *pred = malloc(edges * sizeof *pred);
  uint8_t *val = calloc(n, 1);
  uint32_t *queue = malloc(n * sizeof *queue);
  if (!deg || !first || !pred || !val || !queue) {
    fprintf(stderr, "digraph_queue: out of memory\n");
    return 1;
  }
  for (size_t e = 0; e < edges; e++) {
    deg[src[e]]++;
    first[dst[e] + 1]++;
  }
  for (size_t v = 0; v < n; v++) first[v + 1] += first[v];
  for (size_t e = 0; e < edges; e++) pred[first[dst[e]]++] = src[e];
  free(src);
  free(dst);
  for (size_t v = n; v > 0; v--) first[v] = first[v - 1]; /* the fill moved each start on */
  first[0] = 0;

  size_t head = 0, tail = 0;
  for (size_t v = 0; v < n; v++)
    if (deg[v] == 0) {
      val[v] = LOSS;
      queue[tail++] = (uint32_t)v;
    }
  while (head < tail) {
    uint32_t v = queue[head++];
    if (val[v] == LOSS) {
      for (size_t i = first[v]; i < first[v + 1]; i++) {
        uint32_t u = pred[i];
        if (!val[u]) {
          val[u] = WIN;
          queue[tail++] = u;
        }
      }
    } else {
      for (size_t i = first[v]; i < first[v + 1]; i++) {
        uint32_t u = pred[i];
        if (!val[u] && --deg[u] == 0) {
          val[u] = LOSS;
          queue[tail++] = u;
        }
      }
    }
  }
  double t2 = now();

  uint64_t win = 0, loss = 0, draw = 0;
  for (size_t v = 0; v < n; v++) {
    if (!val[v]) val[v] = DRAW;
    win += val[v] == WIN;
    loss += val[v] == LOSS;
    draw += val[v] == DRAW;
  }
  double solve = t2 - t1;
  printf("vertices %zu edges %zu win %" PRIu64 " loss %" PRIu64 " draw %" PRIu64
         " parse %.3fs solve %.3fs (%.1f M edges/s)\n",
         n, edges, win, loss, draw, t1 - t0, solve, solve > 0 ? edges / solve / 1e6 : 0.0);
  fflush(stdout);

  if (out_path) {
    size_t bytes = (n + 3) / 4;
    uint8_t *out = calloc(bytes, 1);
    if (!out) {
      fprintf(stderr, "digraph_queue: out of memory\n");
      return 1;
    }
    for (size_t v = 0; v < n; v++) out[v / 4] |= (uint8_t)(val[v] << (2 * (v % 4)));
    FILE *o = fopen(out_path, "wb");
    if (!o || fwrite(out, 1, bytes, o) != bytes || fclose(o) != 0) {
      perror(out_path);
      return 1;
    }
    free(out);
  }
  free(deg);
  free(first);
  free(pred);
  free(val);
  free(queue);
  return 0;
}

/* ---- the generator ---- */

static uint64_t rng;

static uint64_t next(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1DULL;
}

/* Uniform in 0..bound-1 (bound >= 1), by rejection. */
static uint64_t below(uint64_t bound) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    uint64_t x = next();
    if (x < limit) return x % bound;
  }
}

static char *put(char *p, uint64_t x) {
  char tmp[20];
  int k = 0;
  do {
    tmp[k++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (k) *p++ = tmp[--k];
  return p;
}

static int parse_u64(const char *s, uint64_t *x) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end || *s == '-') return 0;
  *x = v;
  return 1;
}

static int generate(char **argv) {
  uint64_t n, m, seed, pct;
  if (!parse_u64(argv[0], &n) || !parse_u64(argv[1], &m) || !parse_u64(argv[2], &seed) ||
      !parse_u64(argv[4], &pct) || n == 0 || n >= UINT32_MAX || pct > 100) {
    fprintf(stderr, "digraph_queue --gen: N in 1..4294967295, M, SEED, OUT, SINKPCT in 0..100\n");
    return 2;
  }
  /* The tails: ids with id % 100 >= pct. Some exists unless every id below n is a sink. */
  uint64_t tails = (n / 100) * (100 - pct) + (n % 100 > pct ? n % 100 - pct : 0);
  if (m > 0 && tails == 0) {
    fprintf(stderr, "digraph_queue --gen: every vertex is a sink, no edge can start anywhere\n");
    return 2;
  }
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  rng = z ^ (z >> 31);
  if (!rng) rng = 1;

  FILE *f = fopen(argv[3], "wb");
  if (!f) {
    perror(argv[3]);
    return 1;
  }
  fprintf(f, "# digraph_queue --gen %" PRIu64 " %" PRIu64 " %" PRIu64 " OUT %" PRIu64 "\n", n, m,
          seed, pct);
  size_t cap = 1 << 20;
  char *buf = grow(NULL, cap + 64), *p = buf;
  for (uint64_t e = 0; e < m; e++) {
    /* The k-th tail: block k / (100 - pct) of a hundred ids, offset pct + k % (100 - pct). */
    uint64_t k = below(tails);
    uint64_t u = (k / (100 - pct)) * 100 + pct + k % (100 - pct);
    uint64_t v = below(n);
    p = put(p, u);
    *p++ = ' ';
    p = put(p, v);
    *p++ = '\n';
    if ((size_t)(p - buf) >= cap) {
      if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf)) break;
      p = buf;
    }
  }
  if (fwrite(buf, 1, (size_t)(p - buf), f) != (size_t)(p - buf) || fclose(f) != 0) {
    perror(argv[3]);
    return 1;
  }
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 7 && strcmp(argv[1], "--gen") == 0) return generate(argv + 2);
  if ((argc == 2 || argc == 3) && argv[1][0] != '-')
    return solve_file(argv[1], argc == 3 ? argv[2] : NULL);
  fprintf(stderr,
          "usage: digraph_queue EDGEFILE [OUT]\n"
          "       digraph_queue --gen N M SEED OUT SINKPCT\n");
  return 2;
}
