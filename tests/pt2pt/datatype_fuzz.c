/* Randomized but deterministic test of derived datatypes. From one seed (argv[1], default below; argv[2]
 * sets the number of cases, argv[3] runs one case alone) rank 0 sends the parameters to every rank and all
 * ranks build the same random datatype trees, up to 4 constructors deep, over MPI_CHAR, MPI_SHORT, MPI_INT,
 * MPI_FLOAT, MPI_DOUBLE and MPI_LONG_LONG with contiguous, vector and hvector (negative strides too),
 * indexed, hindexed, indexed_block, hindexed_block, struct (several member types), resized, subarray (C and
 * Fortran order) and dup; counts and block lengths of 0 included, inner types freed once used.
 * Beside each type the test keeps its own type map, computed from the constructor arguments as MPI-3.1
 * chapter 4 defines it (displacement and basic type of every entry in order, and the lb/ub markers that
 * resized and subarray set), and checks against it:
 *  - MPI_Type_size, MPI_Type_get_extent and MPI_Type_get_true_extent of every node of every tree;
 *  - MPI_Pack of 1..3 elements (at an offset into the buffer) gives the entries' bytes in type-map order,
 *    MPI_Pack_size is at least that, MPI_Unpack of those bytes writes exactly the type map's bytes;
 *  - rank r exchanges with r^1 (an odd last rank with itself) by MPI_Sendrecv, received as MPI_BYTE or
 *    MPI_PACKED (the packed bytes), as a contiguous type of the same signature (or as the type itself when
 *    the signature is mixed) and, for one basic type, cut in the middle of an element (MPI_Get_count gives
 *    MPI_UNDEFINED); MPI_Get_count and MPI_Get_elements each time. Case 0 (a vector with a negative
 *    stride) and every 100th case from 50 send more than 256 KiB, to take the rendezvous path.
 * Left out, as implementation-defined or erroneous: the alignment padding ("epsilon") of a type without
 * explicit bounds whose span is not a multiple of its largest basic size (only 0 <= padding < that size is
 * checked, and such a type is resized before another constructor takes it), the bounds of an empty type
 * map, overlapping types in receives and unpacks. Also left out: types of size 0 inside constructors other
 * than resized (by MPI-3.1's markers contiguous(3,resized(contiguous(0,INT),0,8)) has extent 24; MPICH
 * 4.0.2 and Open MPI 4.1.4 both say 0). Assumed, as MPICH, Open MPI and fabmpi do on one node: packed data
 * is the entries' native bytes in order, and typed data can be received as MPI_BYTE. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the implementations used to validate this test depart from MPI-3.1, it steers around them there only.
 * MPICH 4.0.2: (1) a struct's lb/ub come from all members' bounds, not only from the lb/ub markers when
 * some member has them (4.1.7), so there every member gets explicit bounds when one has; (2) a struct's
 * extent is padded to the alignment even when ub is explicit: left open as above; (3) MPI_Get_elements
 * miscounts some types mixing basic types (2 of struct([1,2,3],[-8B,6B,-6B],[SHORT,struct([3],[11B],
 * [FLOAT]),FLOAT]) give 19, not 20) and divides by zero for struct{INT,FLOAT}: not called for mixed types.
 * Open MPI 4.1.4: (4) pads extents that need no padding (hindexed([3,3,3],[40B,18B,-24B],DOUBLE): 96, not
 * 88) and a struct's by more than the alignment ({DOUBLE,SHORT,CHAR} spanning 12: 24), so there only the lb
 * of a derived type without explicit bounds is checked, and it is resized before reuse; (5) takes a
 * (h)vector stride of -1 byte for "the extent" (vector(3,1,-1,CHAR) packs bytes 0,1,2, not 0,-1,-2). */
#ifdef MPICH_VERSION
#define MPICH_QUIRKS 1
#else
#define MPICH_QUIRKS 0
#endif
#ifdef OPEN_MPI
#define OMPI_QUIRKS 1
#else
#define OMPI_QUIRKS 0
#endif

#define MAXSIZE 4096L  /* bytes of data in one random type */
#define MAXSPAN 65536L /* bound on |lb|, |ub| and extents */
#define PAD 64L        /* bytes either side of every buffer that must stay untouched */
#define BIG 300000L    /* bytes of a rendezvous-sized message */

enum { NB = 6 };
static MPI_Datatype bt_mpi[NB];
static const int bt_size[NB] = {1, sizeof(short), sizeof(int), sizeof(float), sizeof(double), sizeof(long long)};
static const char* const bt_name[NB] = {"CHAR", "SHORT", "INT", "FLOAT", "DOUBLE", "LONG_LONG"};

static int g_rank, g_size, g_case, g_case_fails, g_fails;
static unsigned long long g_seed;
static uint64_t g_rng;

static uint64_t next64(void) { /* splitmix64 */
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static long rnd(long lo, long hi) { return lo + (long)(next64() % (uint64_t)(hi - lo + 1)); }

static int failed(int line, const char* cond) {
  ++g_fails;
  if (++g_case_fails > 20) return 0;
  fprintf(stderr, "rank %d/%d: datatype_fuzz.c:%d: seed %llu case %d: check failed: %s: ", g_rank, g_size, line, g_seed,
          g_case, cond);
  return 1;
}
#define CHECK(cond, ...)                                                                                       \
  do {                                                                                                         \
    if (!(cond) && failed(__LINE__, #cond)) {                                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                            \
      fputc('\n', stderr);                                                                                     \
    }                                                                                                          \
  } while (0)
#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

typedef struct { char* s; size_t n, cap; } Str;
static void sp(Str* b, const char* f, ...) {
  va_list ap;
  va_start(ap, f);
  const size_t k = (size_t)vsnprintf(NULL, 0, f, ap);
  va_end(ap);
  if (b->n + k + 1 > b->cap) b->s = realloc(b->s, b->cap = 2 * (b->n + k + 1));
  va_start(ap, f);
  vsnprintf(b->s + b->n, k + 1, f, ap);
  va_end(ap);
  b->n += k;
}
static void sp_arr(Str* b, const long* a, int n, const char* unit) {
  sp(b, "[");
  for (int i = 0; i < n; ++i) sp(b, "%s%ld%s", i ? "," : "", a[i], unit);
  sp(b, "],");
}

/* A datatype and its reference: the type map, explicit bounds (markers), and what follows from them. */
typedef struct { long d; int b; } Ent;
typedef struct {
  MPI_Datatype dt;
  int predef;
  Ent* map;
  long n, cap;
  int mk;        /* has lb/ub markers (from resized or subarray) */
  long mlb, mub; /* lowest lb marker, highest ub marker */
  long size, lb, ub, tlb, tub;
  int maxsz, exact; /* exact: extent fixed by the standard (no epsilon, not empty) */
  char* desc;
} Type;

static Type* tnew(void) {
  Type* t = calloc(1, sizeof *t);
  t->dt = MPI_DATATYPE_NULL;
  return t;
}
static void push(Type* t, long d, int b) {
  if (t->n == t->cap) t->map = realloc(t->map, (size_t)(t->cap = t->cap ? 2 * t->cap : 8) * sizeof(Ent));
  t->map[t->n].d = d;
  t->map[t->n++].b = b;
}
static long ext(const Type* t) { return t->ub - t->lb; }
/* Appends a copy of c's type map shifted by `shift` bytes (with its markers unless resized erases them). */
static void put(Type* t, const Type* c, long shift, int markers) {
  for (long j = 0; j < c->n; ++j) push(t, c->map[j].d + shift, c->map[j].b);
  if (!markers || !c->mk) return;
  const long l = c->mlb + shift, u = c->mub + shift;
  if (!t->mk) t->mlb = l, t->mub = u, t->mk = 1;
  if (l < t->mlb) t->mlb = l;
  if (u > t->mub) t->mub = u;
}
/* MPI-3.1 4.1.6/4.1.7: lb is the lowest lb marker if there is one, else the lowest displacement; ub the
 * highest ub marker, else the highest displacement + size, plus an alignment epsilon left open here. */
static void finish(Type* t) {
  t->size = 0, t->maxsz = 1;
  for (long j = 0; j < t->n; ++j) {
    const long d = t->map[j].d, s = bt_size[t->map[j].b];
    t->size += s;
    if (s > t->maxsz) t->maxsz = (int)s;
    if (j == 0 || d < t->tlb) t->tlb = d;
    if (j == 0 || d + s > t->tub) t->tub = d + s;
  }
  if (t->mk) t->lb = t->mlb, t->ub = t->mub, t->exact = 1;
  else if (t->n) t->lb = t->tlb, t->ub = t->tub, t->exact = (!OMPI_QUIRKS || t->predef) && ext(t) % t->maxsz == 0;
  else t->lb = t->ub = 0, t->exact = 0;
}
static int sane(const Type* t) {
  const long v[5] = {t->lb, t->ub, t->tlb, t->tub, ext(t)};
  for (int i = 0; i < 5; ++i)
    if (v[i] > MAXSPAN || v[i] < -MAXSPAN) return 0;
  return t->size <= MAXSIZE && t->tub - t->tlb <= MAXSPAN;
}
static void discard(Type* t) { free(t->map), free(t->desc), free(t); }
static void tfree(Type* t) {
  if (!t->predef) MPI_OK(MPI_Type_free(&t->dt));
  discard(t);
}

static void check_node(const Type* t) {
  int size;
  MPI_Aint lb, ex, tlb, tex;
  MPI_OK(MPI_Type_size(t->dt, &size));
  CHECK(size == t->size, "MPI_Type_size %d, expected %ld: %s", size, t->size, t->desc);
  MPI_OK(MPI_Type_get_extent(t->dt, &lb, &ex));
  if (t->exact)
    CHECK(lb == t->lb && ex == ext(t), "lb %ld extent %ld, expected %ld %ld: %s", (long)lb, (long)ex, t->lb, ext(t),
          t->desc);
  else if (t->n)
    CHECK(lb == t->lb && ((ex >= ext(t) && ex < ext(t) + t->maxsz) || OMPI_QUIRKS),
          "lb %ld extent %ld, expected %ld and %ld + [0,%d): %s", (long)lb, (long)ex, t->lb, ext(t), t->maxsz, t->desc);
  if (!t->n) return;
  MPI_OK(MPI_Type_get_true_extent(t->dt, &tlb, &tex));
  CHECK(tlb == t->tlb && tex == t->tub - t->tlb, "true lb %ld extent %ld, expected %ld %ld: %s", (long)tlb, (long)tex,
        t->tlb, t->tub - t->tlb, t->desc);
}
static Type* made(Type* t, Str* s) { return t->desc = s->s, check_node(t), t; }

static Type* basic(int b) {
  Type* t = tnew();
  Str s = {0};
  t->dt = bt_mpi[b], t->predef = 1;
  push(t, 0, b);
  finish(t);
  sp(&s, "%s", bt_name[b]);
  t->desc = s.s;
  return t;
}
static Type* resized(Type* c, long lb, long ex) {
  Type* t = tnew();
  Str s = {0};
  put(t, c, 0, 0);
  t->mk = 1, t->mlb = lb, t->mub = lb + ex;
  finish(t);
  MPI_OK(MPI_Type_create_resized(c->dt, lb, ex, &t->dt));
  sp(&s, "resized(lb=%ld,ext=%ld,%s)", lb, ex, c->desc);
  tfree(c);
  return made(t, &s);
}
static Type* vector(Type* c, int cnt, int bl, long stride, int bytes) {
  const long E = ext(c);
  if ((long)cnt * bl * (c->size ? c->size : 1) > MAXSIZE) return c;
  Type* t = tnew();
  Str s = {0};
  for (long i = 0; i < cnt; ++i)
    for (long j = 0; j < bl; ++j) put(t, c, bytes ? i * stride + j * E : (i * stride + j) * E, 1);
  finish(t);
  if (!sane(t)) return discard(t), c;
  if (bytes) MPI_OK(MPI_Type_create_hvector(cnt, bl, stride, c->dt, &t->dt));
  else MPI_OK(MPI_Type_vector(cnt, bl, (int)stride, c->dt, &t->dt));
  sp(&s, "%s(%d,%d,%ld%s,%s)", bytes ? "hvector" : "vector", cnt, bl, stride, bytes ? "B" : "", c->desc);
  tfree(c);
  return made(t, &s);
}

static Type* gen(int depth);
/* A child for another constructor: one whose extent the standard fixes (and lb 0 for subarray). */
static Type* kid(int depth, int lb0, int empty_ok) {
  Type* c = gen(depth);
  if (!c->n && !empty_ok) tfree(c), c = basic((int)rnd(0, NB - 1)); /* see "Left out" */
  if (c->exact && (!lb0 || c->lb == 0)) return c;
  const long lb = lb0 ? 0 : c->n ? c->tlb - rnd(0, 8) : rnd(-8, 8);
  long ex = (c->n ? c->tub : lb) - lb + rnd(0, 16);
  return resized(c, lb, ex < 1 ? 1 : ex);
}
static int rcount(int hi) { return rnd(0, 15) == 0 ? 0 : (int)rnd(1, hi); }
/* Block displacements (in units) for indexed types: mostly disjoint, in shuffled order, at times random. */
static void blocks(int cnt, const int* bl, long* pos, int* order) {
  long p = rnd(-4, 4);
  for (int i = 0; i < cnt; ++i) order[i] = i;
  for (int i = cnt - 1; i > 0 && rnd(0, 1); --i) {
    const int k = (int)rnd(0, i), x = order[i];
    order[i] = order[k], order[k] = x;
  }
  for (int i = 0; i < cnt; ++i) pos[order[i]] = p, p += bl[order[i]] + rnd(0, 2);
  if (rnd(0, 7) == 0)
    for (int i = 0; i < cnt; ++i) pos[i] = rnd(-6, 10);
}

static Type* gen_struct(int depth) {
  Type* k[3];
  int bl[3], order[3];
  long d[3];
  MPI_Aint ad[3];
  MPI_Datatype dts[3];
  const int m = (int)rnd(1, 3);
  int mk = 0;
  long copies = 0, p = rnd(-16, 16);
  for (int i = 0; i < m; ++i) {
    k[i] = kid(depth - 1, 0, 0);
    bl[i] = rcount(3);
    copies += bl[i] * (k[i]->size ? k[i]->size : 1);
  }
  for (int i = 0; i < m; ++i) mk |= k[i]->mk;
  for (int i = 0; i < m && mk && MPICH_QUIRKS; ++i)
    if (!k[i]->mk) k[i] = resized(k[i], k[i]->lb, ext(k[i]));
  blocks(m, bl, d, order); /* only for the order */
  for (int i = 0; i < m; ++i) {
    d[order[i]] = p;
    p += bl[order[i]] * ext(k[order[i]]) + (rnd(0, 2) ? 0 : rnd(1, 8));
  }
  Type* t = tnew();
  for (int i = 0; i < m; ++i)
    for (long j = 0; j < bl[i]; ++j) put(t, k[i], d[i] + j * ext(k[i]), 1);
  finish(t);
  if (MPICH_QUIRKS && t->mk) t->exact = ext(t) % t->maxsz == 0;
  if (copies > MAXSIZE || !sane(t)) {
    discard(t);
    for (int i = 1; i < m; ++i) tfree(k[i]);
    return k[0];
  }
  Str s = {0};
  sp(&s, "struct([");
  for (int i = 0; i < m; ++i) ad[i] = d[i], dts[i] = k[i]->dt, sp(&s, "%s%d", i ? "," : "", bl[i]);
  sp(&s, "],");
  sp_arr(&s, d, m, "B");
  MPI_OK(MPI_Type_create_struct(m, bl, ad, dts, &t->dt));
  for (int i = 0; i < m; ++i) sp(&s, "%s%s", i ? "," : "[", k[i]->desc), tfree(k[i]);
  sp(&s, "])");
  return made(t, &s);
}

static Type* gen(int depth) {
  if (depth == 0 || rnd(0, 4) == 0) return basic((int)rnd(0, NB - 1));
  const int kind = (int)rnd(0, 10);
  if (kind == 7) return gen_struct(depth);
  Type* c = kid(depth - 1, kind == 9, kind == 8);
  const long E = ext(c), unit = c->size ? c->size : 1;
  int cnt = rcount(4), bl = rcount(3), bls[4], id[4], order[4];
  long pos[4], copies = 0;
  MPI_Aint hd[4];
  Str s = {0};
  if (kind == 1 || kind == 2) { /* vector, hvector */
    long stride = (rnd(0, 1) ? 1 : -1) * (bl + rnd(0, 2));
    if (rnd(0, 9) == 0) stride = rnd(-2, 2);
    if (kind == 2) stride = stride * E + rnd(0, 3) * rnd(0, 3);
    if (OMPI_QUIRKS && (kind == 2 ? stride : stride * E) == -1) --stride;
    return vector(c, cnt, bl, stride, kind == 2);
  }
  if (kind == 8) { /* resized: new lb near the data, extent mostly >= the span, at times less */
    const long lb = (c->n ? c->tlb : 0) + rnd(-16, 16), span = c->n ? c->tub - lb : 0;
    const long ex = rnd(0, 3) ? span + rnd(0, 24) : rnd(1, span > 1 ? span : 1);
    return resized(c, lb, ex < 1 ? 1 : ex);
  }
  Type* t = tnew();
  if (kind == 0) { /* contiguous */
    cnt = rcount(6);
    if (cnt * unit > MAXSIZE) return discard(t), c;
    for (long i = 0; i < cnt; ++i) put(t, c, i * E, 1);
    sp(&s, "contiguous(%d,%s)", cnt, c->desc);
  } else if (kind >= 3 && kind <= 6) { /* indexed, hindexed, indexed_block, hindexed_block */
    const int blk = kind >= 5;
    for (int i = 0; i < cnt; ++i) bls[i] = blk ? bl : rcount(3), copies += bls[i];
    if (copies * unit > MAXSIZE) return discard(t), c;
    blocks(cnt, bls, pos, order);
    const int bytes = kind == 4 || kind == 6;
    for (int i = 0; i < cnt; ++i) {
      hd[i] = bytes ? pos[i] * E + (rnd(0, 3) ? 0 : rnd(1, 3)) : pos[i];
      id[i] = (int)pos[i], pos[i] = (long)hd[i];
      for (long j = 0; j < bls[i]; ++j) put(t, c, bytes ? hd[i] + j * E : (id[i] + j) * E, 1);
    }
    static const char* const names[4] = {"indexed", "hindexed", "indexed_block", "hindexed_block"};
    sp(&s, "%s(", names[kind - 3]);
    if (blk) sp(&s, "%d,", bl);
    else {
      long b[4];
      for (int i = 0; i < cnt; ++i) b[i] = bls[i];
      sp_arr(&s, b, cnt, "");
    }
    sp_arr(&s, pos, cnt, bytes ? "B" : "");
    sp(&s, "%s)", c->desc);
  } else if (kind == 9) { /* subarray: its type map is resized(lb 0, extent = all the array) */
    const int nd = (int)rnd(1, 3), fortran = (int)rnd(0, 1);
    int sz[3], sub[3], st[3], idx[3];
    long nsub = 1, all = 1, stride[3];
    for (int i = 0; i < nd; ++i) {
      sz[i] = (int)rnd(1, 4), sub[i] = (int)rnd(1, sz[i]), st[i] = (int)rnd(0, sz[i] - sub[i]);
      nsub *= sub[i], all *= sz[i];
    }
    if (nsub * unit > MAXSIZE) return discard(t), c;
    for (int i = 0; i < nd; ++i) { /* elements between neighbours along dimension i */
      stride[i] = 1;
      for (int j = 0; j < nd; ++j)
        if (fortran ? j < i : j > i) stride[i] *= sz[j];
    }
    for (long l = 0; l < nsub; ++l) {
      long r = l, off = 0;
      for (int q = 0; q < nd; ++q) { /* the fastest dimension first */
        const int i = fortran ? q : nd - 1 - q;
        idx[i] = (int)(r % sub[i]), r /= sub[i];
      }
      for (int i = 0; i < nd; ++i) off += (st[i] + idx[i]) * stride[i];
      put(t, c, off * E, 0);
    }
    t->mk = 1, t->mlb = 0, t->mub = all * E;
    long a[3][3];
    for (int i = 0; i < nd; ++i) a[0][i] = sz[i], a[1][i] = sub[i], a[2][i] = st[i];
    sp(&s, "subarray(%s,", fortran ? "F" : "C");
    for (int i = 0; i < 3; ++i) sp_arr(&s, a[i], nd, "");
    sp(&s, "%s)", c->desc);
    finish(t);
    if (sane(t))
      MPI_OK(MPI_Type_create_subarray(nd, sz, sub, st, fortran ? MPI_ORDER_FORTRAN : MPI_ORDER_C, c->dt, &t->dt));
  } else { /* dup */
    put(t, c, 0, 1);
    sp(&s, "dup(%s)", c->desc);
  }
  finish(t);
  if (!sane(t)) return free(s.s), discard(t), c;
  if (kind == 0) MPI_OK(MPI_Type_contiguous(cnt, c->dt, &t->dt));
  if (kind == 3) MPI_OK(MPI_Type_indexed(cnt, bls, id, c->dt, &t->dt));
  if (kind == 4) MPI_OK(MPI_Type_create_hindexed(cnt, bls, hd, c->dt, &t->dt));
  if (kind == 5) MPI_OK(MPI_Type_create_indexed_block(cnt, bl, id, c->dt, &t->dt));
  if (kind == 6) MPI_OK(MPI_Type_create_hindexed_block(cnt, bl, hd, c->dt, &t->dt));
  if (kind == 10) MPI_OK(MPI_Type_dup(c->dt, &t->dt));
  tfree(c);
  return made(t, &s);
}

/* Buffer layout of `cnt` elements: bytes [0, len), the element at displacement 0 at byte `base`. */
typedef struct { long cnt, E, len, base; int overlap; } Lay;
static Lay layout(const Type* t, long cnt, long E) {
  Lay L = {cnt, E, 0, 0, 0};
  long lo = 0, hi = 0;
  for (long i = 0; i < cnt; ++i)
    for (long j = 0; j < t->n; ++j) {
      const long d = i * E + t->map[j].d;
      if (d < lo) lo = d;
      if (d + bt_size[t->map[j].b] > hi) hi = d + bt_size[t->map[j].b];
    }
  L.len = hi - lo + 2 * PAD, L.base = PAD - lo;
  unsigned char* cov = calloc((size_t)L.len, 1);
  for (long i = 0; i < cnt; ++i)
    for (long j = 0; j < t->n; ++j)
      for (long b = 0; b < bt_size[t->map[j].b]; ++b)
        if (cov[L.base + i * E + t->map[j].d + b]++) L.overlap = 1;
  free(cov);
  return L;
}
static unsigned char pat(int src, long off) {
  return (unsigned char)(1 + ((unsigned long)off * 131u + (unsigned)src * 71u + (unsigned)g_case * 29u) % 251u);
}
static unsigned char* filled(long len, int src) {
  unsigned char* p = malloc((size_t)len + 1);
  for (long i = 0; i < len; ++i) p[i] = pat(src, i);
  return p;
}
/* The packed bytes of a buffer of L's layout filled by rank src: the entries in type-map order. */
static unsigned char* packed_ref(const Type* t, const Lay* L, int src) {
  unsigned char* p = malloc((size_t)(L->cnt * t->size) + 1);
  long k = 0;
  for (long i = 0; i < L->cnt; ++i)
    for (long j = 0; j < t->n; ++j)
      for (long b = 0; b < bt_size[t->map[j].b]; ++b) p[k++] = pat(src, L->base + i * L->E + t->map[j].d + b);
  return p;
}
/* A zeroed buffer of L's layout with the first `nent` entries set from `bytes`, in order. */
static unsigned char* image(const Type* t, const Lay* L, const unsigned char* bytes, long nent) {
  unsigned char* p = calloc((size_t)L->len, 1);
  for (long e = 0, k = 0; e < nent; ++e) {
    const Ent* x = &t->map[e % t->n];
    memcpy(p + L->base + (e / t->n) * L->E + x->d, bytes + k, (size_t)bt_size[x->b]);
    k += bt_size[x->b];
  }
  return p;
}
static long diff(const unsigned char* a, const unsigned char* b, long n) { /* first difference, or -1 */
  for (long i = 0; i < n; ++i)
    if (a[i] != b[i]) return i;
  return -1;
}
static long nonzero(const unsigned char* a, long from, long to) {
  for (long i = from; i < to; ++i)
    if (a[i]) return i;
  return -1;
}

static void check_recv(MPI_Status* st, MPI_Datatype dt, long count, long elems, int mixed, const char* what) {
  int c = -1, e = -1, size;
  MPI_OK(MPI_Type_size(dt, &size));
  MPI_OK(MPI_Get_count(st, dt, &c));
  if (!size) { /* MPI-3.1 3.2.5: count 0 for a datatype of size 0; MPI_Get_elements leaves it open */
    CHECK(c == 0, "%s: MPI_Get_count %d of a datatype of size 0", what, c);
    return;
  }
  if (MPICH_QUIRKS && mixed) e = (int)elems;
  else MPI_OK(MPI_Get_elements(st, dt, &e));
  CHECK(c == count && e == elems, "%s: MPI_Get_count %d MPI_Get_elements %d, expected %ld %ld", what, c, e, count,
        elems);
}

static void run_case(Type* t, long ccomm) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Aint rlb, rex;
  if (!t->predef) MPI_OK(MPI_Type_commit(&t->dt));
  MPI_OK(MPI_Type_get_extent(t->dt, &rlb, &rex));
  const long E = t->exact ? ext(t) : (long)rex; /* only inexact when the padding is the implementation's */
  /* MPI_Pack / MPI_Pack_size / MPI_Unpack of 1..3 elements */
  const long cc = rnd(1, 3), np = cc * t->size, off = rnd(0, 7);
  Lay L = layout(t, cc, E);
  unsigned char* in = filled(L.len, g_rank);
  unsigned char* ref = packed_ref(t, &L, g_rank);
  int psz = -1, pos = (int)off;
  MPI_OK(MPI_Pack_size((int)cc, t->dt, comm, &psz));
  CHECK(psz >= np, "MPI_Pack_size(%ld) %d < %ld", cc, psz, np);
  const long outsz = off + (psz > np ? psz : np);
  unsigned char* out = malloc((size_t)outsz + 1);
  memset(out, 0xEE, (size_t)outsz);
  MPI_OK(MPI_Pack(in + L.base, (int)cc, t->dt, out, (int)outsz, &pos, comm));
  CHECK(pos == off + np, "MPI_Pack(%ld) position %d, expected %ld", cc, pos, off + np);
  long d = diff(out + off, ref, np);
  CHECK(d < 0, "MPI_Pack(%ld): packed byte %ld is %d, expected %d", cc, d, out[off + d], ref[d]);
  for (long i = 0; i < off; ++i) CHECK(out[i] == 0xEE, "MPI_Pack wrote byte %ld before the position", i);
  if (!L.overlap) {
    unsigned char* got = calloc((size_t)L.len, 1);
    unsigned char* want = image(t, &L, ref, cc * t->n);
    pos = 0;
    MPI_OK(MPI_Unpack(ref, (int)np, &pos, got + L.base, (int)cc, t->dt, comm));
    CHECK(pos == np, "MPI_Unpack(%ld) position %d, expected %ld", cc, pos, np);
    d = diff(got, want, L.len);
    CHECK(d < 0, "MPI_Unpack(%ld): byte at displacement %ld is %d, expected %d", cc, d - L.base, got[d], want[d]);
    free(got), free(want);
  }
  free(in), free(ref), free(out);

  /* MPI_Sendrecv of ccomm elements with the partner */
  const int p = (g_rank ^ 1) < g_size ? g_rank ^ 1 : g_rank;
  const long nb = ccomm * t->size, N = ccomm * t->n;
  MPI_Status st;
  L = layout(t, ccomm, E);
  unsigned char* sb = filled(L.len, g_rank);
  unsigned char* pref = packed_ref(t, &L, p);
  /* (a) as MPI_BYTE or MPI_PACKED */
  const MPI_Datatype R = rnd(0, 1) ? MPI_BYTE : MPI_PACKED;
  const long rc = nb + rnd(0, 8);
  unsigned char* rb = calloc((size_t)(rc + PAD), 1);
  MPI_OK(MPI_Sendrecv(sb + L.base, (int)ccomm, t->dt, p, 1, rb, (int)rc, R, p, 1, comm, &st));
  check_recv(&st, R, nb, nb, 0, R == MPI_BYTE ? "as MPI_BYTE" : "as MPI_PACKED");
  d = diff(rb, pref, nb);
  CHECK(d < 0, "received as bytes: byte %ld is %d, expected %d", d, rb[d], pref[d]);
  CHECK((d = nonzero(rb, nb, rc + PAD)) < 0, "received as bytes: byte %ld past the message written", d);
  free(rb);
  /* (b) as a contiguous type of the same basic type, else as the type itself */
  int homo = t->n > 0;
  for (long j = 1; j < t->n; ++j) homo = homo && t->map[j].b == t->map[0].b;
  if (homo) {
    const int B = t->map[0].b;
    long k = rnd(1, 8);
    if (N % k) k = 1;
    const long rcnt = N / k + rnd(0, 1), rlen = rcnt * k * bt_size[B] + PAD;
    MPI_Datatype T2;
    MPI_OK(MPI_Type_contiguous((int)k, bt_mpi[B], &T2));
    MPI_OK(MPI_Type_commit(&T2));
    rb = calloc((size_t)rlen, 1);
    MPI_OK(MPI_Sendrecv(sb + L.base, (int)ccomm, t->dt, p, 2, rb, (int)rcnt, T2, p, 2, comm, &st));
    check_recv(&st, T2, N / k, N, 0, "as contiguous");
    d = diff(rb, pref, nb);
    CHECK(d < 0, "received as contiguous(%ld,%s): byte %ld is %d, expected %d", k, bt_name[B], d, rb[d], pref[d]);
    CHECK((d = nonzero(rb, nb, rlen)) < 0, "received as contiguous: byte %ld past the message written", d);
    MPI_OK(MPI_Type_free(&T2));
    free(rb);
  } else if (!L.overlap) {
    rb = calloc((size_t)L.len, 1);
    unsigned char* want = image(t, &L, pref, N);
    MPI_OK(MPI_Sendrecv(sb + L.base, (int)ccomm, t->dt, p, 2, rb + L.base, (int)ccomm, t->dt, p, 2, comm, &st));
    check_recv(&st, t->dt, ccomm, N, 1, "as the type");
    d = diff(rb, want, L.len);
    CHECK(d < 0, "received as the type: byte at displacement %ld is %d, expected %d", d - L.base, rb[d], want[d]);
    free(rb), free(want);
  }
  /* (c) one basic type: fewer elements than ccomm whole ones, received as the type */
  if (homo && t->n >= 2 && !L.overlap) {
    const int B = t->map[0].b;
    const long m = (ccomm - 1) * t->n + rnd(1, t->n - 1);
    unsigned char* cb = filled(m * bt_size[B], g_rank);
    unsigned char* cref = filled(m * bt_size[B], p);
    unsigned char* want = image(t, &L, cref, m);
    rb = calloc((size_t)L.len, 1);
    MPI_OK(MPI_Sendrecv(cb, (int)m, bt_mpi[B], p, 3, rb + L.base, (int)ccomm, t->dt, p, 3, comm, &st));
    check_recv(&st, t->dt, MPI_UNDEFINED, m, 0, "partial");
    d = diff(rb, want, L.len);
    CHECK(d < 0, "partial receive of %ld: byte at displacement %ld is %d, expected %d", m, d - L.base, rb[d], want[d]);
    free(cb), free(cref), free(want), free(rb);
  }
  free(sb), free(pref);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  bt_mpi[0] = MPI_CHAR, bt_mpi[1] = MPI_SHORT, bt_mpi[2] = MPI_INT;
  bt_mpi[3] = MPI_FLOAT, bt_mpi[4] = MPI_DOUBLE, bt_mpi[5] = MPI_LONG_LONG;
  unsigned long long par[3] = {20250611ull, 300ull, 0ull}; /* seed, cases, 1 + the one case to run */
  if (g_rank == 0) {
    if (argc > 1) par[0] = strtoull(argv[1], NULL, 0);
    if (argc > 2) par[1] = strtoull(argv[2], NULL, 0);
    if (argc > 3) par[2] = strtoull(argv[3], NULL, 0) + 1;
    for (int i = 1; i < g_size; ++i) MPI_OK(MPI_Send(par, (int)sizeof par, MPI_BYTE, i, 0, MPI_COMM_WORLD));
  } else {
    MPI_OK(MPI_Recv(par, (int)sizeof par, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  g_seed = par[0];
  const long ncases = (long)par[1], only = (long)par[2] - 1;
  long ran = 0;
  for (long k = 0; k < ncases; ++k) {
    if (only >= 0 && k != only) continue;
    g_case = (int)k, g_case_fails = 0, ++ran;
    g_rng = g_seed, g_rng = next64() ^ (uint64_t)k, g_rng = next64(); /* independent streams per case */
    Type* t = NULL;
    long cc = rnd(1, 3);
    if (k == 0) { /* rendezvous-sized: 300000 bytes in elements of 96, a negative stride */
      t = vector(basic(4), 4, 3, -5, 0);
      cc = BIG / t->size + 1;
    } else if (k % 100 == 50) { /* rendezvous-sized message of a random type */
      for (int tries = 0; !t && tries < 200; ++tries) {
        t = gen(4);
        const long n = t->size > 0 ? BIG / t->size + 1 : 0;
        if (t->size < 32 || n * (ext(t) + t->maxsz) + (t->tub - t->tlb) > (16L << 20)) tfree(t), t = NULL;
        else cc = n;
      }
      if (!t) t = vector(basic(2), 40, 1, 3, 0), cc = BIG / t->size + 1;
    } else
      t = gen(4);
    run_case(t, cc);
    if (g_case_fails)
      fprintf(stderr, "rank %d/%d: seed %llu case %ld: %d failures (rerun: mpirun -np %d datatype_fuzz %llu %ld %ld), "
              "count %ld, type %s\n", g_rank, g_size, g_seed, k, g_case_fails, g_size, g_seed, ncases, k, cc, t->desc);
    tfree(t);
  }
  if (g_fails) fprintf(stderr, "rank %d/%d: datatype_fuzz seed %llu: %d failures\n", g_rank, g_size, g_seed, g_fails);
  else if (g_rank == 0) printf("datatype_fuzz: %ld cases OK (seed %llu, %d ranks)\n", ran, g_seed, g_size);
  MPI_Finalize();
  return g_fails ? 1 : 0;
}
