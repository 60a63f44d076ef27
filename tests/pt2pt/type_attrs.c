/* Datatype attribute caching (MPI-3.1 section 6.7.4, by analogy with the communicator rules of 6.7.2) and
 * datatype names (6.8):
 *   MPI_Type_create_keyval / MPI_Type_free_keyval / MPI_Type_set_attr / MPI_Type_get_attr /
 *   MPI_Type_delete_attr with MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN and user
 *   callbacks that count their calls and record their arguments (type handle, keyval, attribute value,
 *   extra_state);
 *   MPI_Type_get_attr answers flag = 0 for a keyval with nothing set;
 *   copy callbacks run on MPI_Type_dup, once per attribute present, flag = 0 means not copied;
 *   delete callbacks run on MPI_Type_delete_attr, on replacing a value with MPI_Type_set_attr and on
 *   MPI_Type_free, once per attribute present;
 *   a copy callback returning an error makes MPI_Type_dup fail; a delete callback returning an error makes
 *   MPI_Type_delete_attr and the replacing MPI_Type_set_attr fail ("The call will fail if ...", 6.7.2);
 *   attributes on a predefined type (MPI_INT) and on committed derived types; dup keeps the committed state
 *   (4.1.10): the duplicate is used uncommitted in a message;
 *   MPI_Type_free_keyval while attributes still use the keyval: the keyval variable becomes
 *   MPI_KEYVAL_INVALID, the attributes stay and are deleted (callbacks run) by MPI_Type_delete_attr with the
 *   old value and by MPI_Type_free (6.7.2, MPI_COMM_FREE_KEYVAL);
 *   MPI_KEYVAL_INVALID is an erroneous key value (6.7.2): if detected, the error class is MPI_ERR_KEYVAL
 *   (6.7.5); a detected error is all the standard allows, so a success must at least answer flag = 0;
 *   names: a predefined type is named after itself ("MPI_INT"), a name set is returned, setting again
 *   replaces it, a type with no name answers "" and names do not propagate through MPI_Type_dup (6.8).
 * Errors are raised where MPI-3.1 raised those of no communicator (MPI_COMM_WORLD) and MPI-4.0 does
 * (MPI_COMM_SELF): both are set to MPI_ERRORS_RETURN around the calls expected to fail.
 * Runs at any number of ranks (registered at 1 and 2); attributes are local, the message part pairs ranks.
 * Self-contained: builds with any mpicc. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size = 0;

#define CHECK(cond, ...)                                                                                   \
  do {                                                                                                     \
    if (!(cond)) {                                                                                         \
      fprintf(stderr, "type_attrs: rank %d: %s:%d: check failed: %s: ", rank, __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                                        \
      fprintf(stderr, "\n");                                                                               \
      fflush(stderr);                                                                                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                        \
    }                                                                                                      \
  } while (0)

#define MPI_OK(call)                                               \
  do {                                                             \
    int rc_ = (call);                                              \
    CHECK(rc_ == MPI_SUCCESS, "%s returned error %d", #call, rc_); \
  } while (0)

/* -DKNOWN_MPICH_4_0_BUGS / -DKNOWN_OMPI_4_1_BUGS (never set in the meson build) skip what those get wrong, so
 * the rest of this test can be checked against them:
 *  MPICH 4.0.2: on a type whose attributes were set newer keyval first, MPI_Type_set_attr of the older keyval
 *  adds a second entry instead of replacing (no delete callback), and MPI_Type_delete_attr removes only one;
 *  Open MPI 4.1.4: MPI_KEYVAL_INVALID is reported as MPI_ERR_OTHER, not MPI_ERR_KEYVAL; MPI_Type_dup names the
 *  duplicate "Dup <name>". */
#ifdef KNOWN_MPICH_4_0_BUGS
#define MPICH_BUG 1
#else
#define MPICH_BUG 0
#endif
#ifdef KNOWN_OMPI_4_1_BUGS
#define OMPI_BUG 1
#else
#define OMPI_BUG 0
#endif

static int err_class(int rc) {
  int c = -1;
  MPI_Error_class(rc, &c);
  return c;
}

static void errors_return(int on) {
  MPI_Errhandler h = on ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, h));
}

/* ---- keyval bookkeeping: one of these is each user keyval's extra_state --------------------------------- */
enum { COPY_NEXT, COPY_NONE, COPY_FAIL }; /* COPY_NEXT: the copy holds the next attribute value, flag = 1 */
#define MAGIC 0x5eed1e55

enum { LOG = 8 };
typedef struct {
  int magic;
  int keyval;
  int copy_mode;
  int delete_fails; /* the delete callback returns an error while set */
  int copies, deletes;
  MPI_Datatype copy_type, delete_type; /* the handle each callback was given last */
  int copy_keyval, delete_keyval;
  void *copy_in, *delete_val;
  MPI_Datatype deleted_types[LOG]; /* every delete callback's (type, value), in order */
  void* deleted_vals[LOG];
} kstate;

static int bad_extra_state = 0; /* a callback got an extra_state that is not a kstate */

/* attribute values: addresses in this array, so a copied value (the next element) is recognisable */
static int slots[256];
#define SLOT(i) ((void*)&slots[i])

static int copy_fn(MPI_Datatype oldtype, int keyval, void* extra_state, void* attribute_val_in,
                   void* attribute_val_out, int* flag) {
  kstate* k = (kstate*)extra_state;
  if (k == NULL || k->magic != MAGIC) {
    bad_extra_state = 1;
    *flag = 0;
    return MPI_SUCCESS;
  }
  k->copies++;
  k->copy_type = oldtype;
  k->copy_keyval = keyval;
  k->copy_in = attribute_val_in;
  if (k->copy_mode == COPY_FAIL) return MPI_ERR_OTHER;
  if (k->copy_mode == COPY_NONE) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *(void**)attribute_val_out = (void*)((int*)attribute_val_in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int delete_fn(MPI_Datatype type, int keyval, void* attribute_val, void* extra_state) {
  kstate* k = (kstate*)extra_state;
  if (k == NULL || k->magic != MAGIC) {
    bad_extra_state = 1;
    return MPI_SUCCESS;
  }
  if (k->deletes < LOG) {
    k->deleted_types[k->deletes] = type;
    k->deleted_vals[k->deletes] = attribute_val;
  }
  k->deletes++;
  k->delete_type = type;
  k->delete_keyval = keyval;
  k->delete_val = attribute_val;
  return k->delete_fails ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void new_keyval(kstate* k, MPI_Type_copy_attr_function* c, MPI_Type_delete_attr_function* d, int mode) {
  memset(k, 0, sizeof *k);
  k->magic = MAGIC;
  k->copy_mode = mode;
  k->keyval = MPI_KEYVAL_INVALID;
  MPI_OK(MPI_Type_create_keyval(c, d, &k->keyval, k));
  CHECK(k->keyval != MPI_KEYVAL_INVALID, "MPI_Type_create_keyval returned MPI_KEYVAL_INVALID");
}

/* the attribute of keyval on t: flag and value */
static void* get(MPI_Datatype t, int keyval, int* flag) {
  void* v = NULL;
  *flag = -1;
  MPI_OK(MPI_Type_get_attr(t, keyval, &v, flag));
  CHECK(*flag == 0 || *flag == 1, "MPI_Type_get_attr flag %d", *flag);
  return v;
}
static void expect_attr(MPI_Datatype t, int keyval, void* want, const char* what) {
  int flag;
  void* v = get(t, keyval, &flag);
  CHECK(flag == 1, "%s: attribute of keyval %d not found", what, keyval);
  CHECK(v == want, "%s: attribute of keyval %d is %p, expected %p", what, keyval, v, want);
}
static void expect_no_attr(MPI_Datatype t, int keyval, const char* what) {
  int flag;
  (void)get(t, keyval, &flag);
  CHECK(flag == 0, "%s: keyval %d unexpectedly has an attribute", what, keyval);
}
static void expect_calls(const kstate* k, int copies, int deletes, const char* what) {
  CHECK(!bad_extra_state, "%s: a callback got a wrong extra_state", what);
  CHECK(k->copies == copies && k->deletes == deletes, "%s: keyval %d: %d copy / %d delete callbacks, expected %d / %d",
        what, k->keyval, k->copies, k->deletes, copies, deletes);
}
static void expect_deleted(const kstate* k, MPI_Datatype t, void* val, const char* what) {
  CHECK(k->delete_type == t, "%s: delete callback got another datatype handle", what);
  CHECK(k->delete_keyval == k->keyval, "%s: delete callback got keyval %d, expected %d", what, k->delete_keyval,
        k->keyval);
  CHECK(k->delete_val == val, "%s: delete callback got %p, expected %p", what, k->delete_val, val);
}
/* The delete callbacks k has seen, as a multiset of (type, value), are exactly the n given. */
static void expect_delete_log(const kstate* k, int n, const MPI_Datatype* types, void* const* vals, const char* what) {
  int used[LOG] = {0}, i, j;
  CHECK(n <= LOG && k->deletes == n, "%s: keyval %d: %d delete callbacks, expected %d", what, k->keyval, k->deletes,
        n);
  for (i = 0; i < n; ++i) {
    for (j = 0; j < n; ++j)
      if (!used[j] && k->deleted_types[j] == types[i] && k->deleted_vals[j] == vals[i]) break;
    CHECK(j < n, "%s: keyval %d: no delete callback for value %p on the expected datatype", what, k->keyval, vals[i]);
    used[j] = 1;
  }
}

static void expect_copied(const kstate* k, MPI_Datatype t, void* val, const char* what) {
  CHECK(k->copy_type == t, "%s: copy callback got another datatype handle than the one duplicated", what);
  CHECK(k->copy_keyval == k->keyval, "%s: copy callback got keyval %d, expected %d", what, k->copy_keyval,
        k->keyval);
  CHECK(k->copy_in == val, "%s: copy callback got attribute_val_in %p, expected %p", what, k->copy_in, val);
}

static MPI_Datatype make_type(void) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  MPI_OK(MPI_Type_commit(&t));
  return t;
}

/* ---- 1. set / get / replace / delete on a committed derived type ---------------------------------------- */
static void test_basic(void) {
  kstate a, b;
  MPI_Datatype t = make_type();
  new_keyval(&a, copy_fn, delete_fn, COPY_NEXT);
  new_keyval(&b, copy_fn, delete_fn, COPY_NEXT);
  CHECK(a.keyval != b.keyval, "two keyvals alike (%d)", a.keyval);
  expect_no_attr(t, a.keyval, "fresh type");
  expect_no_attr(MPI_INT, a.keyval, "MPI_INT, nothing set");
  MPI_OK(MPI_Type_set_attr(t, a.keyval, SLOT(0)));
  expect_attr(t, a.keyval, SLOT(0), "set");
  expect_no_attr(t, b.keyval, "other keyval");
  expect_no_attr(MPI_INT, a.keyval, "MPI_INT, set on another type");
  expect_calls(&a, 0, 0, "set");
  /* replacing runs the delete callback on the old value */
  MPI_OK(MPI_Type_set_attr(t, a.keyval, SLOT(10)));
  expect_calls(&a, 0, 1, "replace");
  expect_deleted(&a, t, SLOT(0), "replace");
  expect_attr(t, a.keyval, SLOT(10), "replaced");
  MPI_OK(MPI_Type_set_attr(t, b.keyval, SLOT(20)));
  expect_attr(t, b.keyval, SLOT(20), "second keyval");
  expect_attr(t, a.keyval, SLOT(10), "first keyval after setting the second");
  /* delete */
  MPI_OK(MPI_Type_delete_attr(t, a.keyval));
  expect_calls(&a, 0, 2, "delete");
  expect_deleted(&a, t, SLOT(10), "delete");
  expect_no_attr(t, a.keyval, "deleted");
  expect_attr(t, b.keyval, SLOT(20), "the other attribute after a delete");
  expect_calls(&b, 0, 0, "the other keyval after a delete");
  /* free runs the delete callback of what is left, only */
  {
    MPI_Datatype old = t;
    MPI_OK(MPI_Type_free(&t));
    CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free did not set MPI_DATATYPE_NULL");
    expect_calls(&a, 0, 2, "free (keyval without attribute)");
    expect_calls(&b, 0, 1, "free");
    expect_deleted(&b, old, SLOT(20), "free");
  }
  /* the same with the attributes set in the other order (newer keyval first) */
  if (!MPICH_BUG) {
    MPI_Datatype old;
    t = make_type();
    MPI_OK(MPI_Type_set_attr(t, b.keyval, SLOT(22)));
    MPI_OK(MPI_Type_set_attr(t, a.keyval, SLOT(12)));
    MPI_OK(MPI_Type_set_attr(t, a.keyval, SLOT(14)));
    expect_calls(&a, 0, 3, "replace, newer keyval set first");
    expect_deleted(&a, t, SLOT(12), "replace, newer keyval set first");
    expect_attr(t, a.keyval, SLOT(14), "replaced, newer keyval set first");
    MPI_OK(MPI_Type_delete_attr(t, a.keyval));
    expect_calls(&a, 0, 4, "delete, newer keyval set first");
    expect_deleted(&a, t, SLOT(14), "delete, newer keyval set first");
    expect_no_attr(t, a.keyval, "deleted, newer keyval set first");
    expect_attr(t, b.keyval, SLOT(22), "the other attribute, newer keyval set first");
    old = t;
    MPI_OK(MPI_Type_free(&t));
    expect_calls(&a, 0, 4, "free, newer keyval set first");
    expect_calls(&b, 0, 2, "free, newer keyval set first");
    expect_deleted(&b, old, SLOT(22), "free, newer keyval set first");
  }
  MPI_OK(MPI_Type_free_keyval(&a.keyval));
  MPI_OK(MPI_Type_free_keyval(&b.keyval));
  CHECK(a.keyval == MPI_KEYVAL_INVALID && b.keyval == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval");
}

/* ---- 2. MPI_Type_dup with each kind of copy callback ----------------------------------------------------- */
/* When MPI_Type_free runs the delete callbacks of a type that a living duplicate was made from is left open:
 * MPICH 4.0.2 and Open MPI 4.1.4 run them when the last type built on it goes. Such frees are checked for
 * "not more than once so far", the complete set of delete callbacks once everything is freed. */
static void expect_at_most(const kstate* k, int copies, int deletes, const char* what) {
  CHECK(!bad_extra_state, "%s: a callback got a wrong extra_state", what);
  CHECK(k->copies == copies && (k->deletes == deletes || k->deletes == deletes - 1),
        "%s: keyval %d: %d copy / %d delete callbacks, expected %d / %d (or %d deferred)", what, k->keyval, k->copies,
        k->deletes, copies, deletes, deletes - 1);
}

static void test_dup(void) {
  kstate next, none, dupfn, nulls; /* nulls: MPI_TYPE_NULL_COPY_FN + MPI_TYPE_NULL_DELETE_FN */
  MPI_Datatype t = make_type(), t2, t3, ht, ht2, ht3;
  new_keyval(&next, copy_fn, delete_fn, COPY_NEXT);
  new_keyval(&none, copy_fn, delete_fn, COPY_NONE);
  new_keyval(&dupfn, MPI_TYPE_DUP_FN, delete_fn, COPY_NEXT);
  new_keyval(&nulls, MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, COPY_NEXT);
  MPI_OK(MPI_Type_set_attr(t, next.keyval, SLOT(30)));
  MPI_OK(MPI_Type_set_attr(t, none.keyval, SLOT(40)));
  MPI_OK(MPI_Type_set_attr(t, dupfn.keyval, SLOT(50)));
  MPI_OK(MPI_Type_set_attr(t, nulls.keyval, SLOT(60)));
  MPI_OK(MPI_Type_dup(t, &t2));
  CHECK(t2 != t && t2 != MPI_DATATYPE_NULL, "MPI_Type_dup handle");
  expect_calls(&next, 1, 0, "dup");
  expect_copied(&next, t, SLOT(30), "dup");
  expect_calls(&none, 1, 0, "dup, flag = 0");
  expect_copied(&none, t, SLOT(40), "dup, flag = 0");
  expect_calls(&dupfn, 0, 0, "dup, MPI_TYPE_DUP_FN");
  expect_attr(t2, next.keyval, SLOT(31), "the copy callback's value");
  expect_no_attr(t2, none.keyval, "copy callback answered flag = 0");
  expect_attr(t2, dupfn.keyval, SLOT(50), "MPI_TYPE_DUP_FN copies the value");
  expect_no_attr(t2, nulls.keyval, "MPI_TYPE_NULL_COPY_FN does not copy");
  /* the original keeps its attributes */
  expect_attr(t, next.keyval, SLOT(30), "original after dup");
  expect_attr(t, none.keyval, SLOT(40), "original after dup");
  expect_attr(t, dupfn.keyval, SLOT(50), "original after dup");
  expect_attr(t, nulls.keyval, SLOT(60), "original after dup");
  /* a duplicate's attributes are its own */
  MPI_OK(MPI_Type_set_attr(t2, none.keyval, SLOT(45)));
  expect_attr(t, none.keyval, SLOT(40), "original after setting on the duplicate");
  expect_attr(t2, none.keyval, SLOT(45), "set on the duplicate");
  /* freeing the original (its duplicate alive): at most one delete callback per attribute it has; the
   * duplicate's attributes stay */
  ht = t;
  MPI_OK(MPI_Type_free(&t));
  expect_at_most(&next, 1, 1, "free original");
  expect_at_most(&none, 1, 1, "free original");
  expect_at_most(&dupfn, 0, 1, "free original");
  expect_attr(t2, next.keyval, SLOT(31), "duplicate after the original is freed");
  expect_attr(t2, none.keyval, SLOT(45), "duplicate after the original is freed");
  expect_attr(t2, dupfn.keyval, SLOT(50), "duplicate after the original is freed");
  /* a duplicate of the duplicate: the copy callbacks see the duplicate's values */
  MPI_OK(MPI_Type_dup(t2, &t3));
  CHECK(next.copies == 2 && none.copies == 2 && dupfn.copies == 0, "second dup: copy callbacks %d %d %d",
        next.copies, none.copies, dupfn.copies);
  expect_copied(&next, t2, SLOT(31), "second dup");
  expect_copied(&none, t2, SLOT(45), "second dup");
  expect_attr(t3, next.keyval, SLOT(32), "second dup");
  expect_attr(t3, dupfn.keyval, SLOT(50), "second dup");
  expect_no_attr(t3, none.keyval, "second dup, flag = 0");
  expect_no_attr(t3, nulls.keyval, "second dup, MPI_TYPE_NULL_COPY_FN");
  ht2 = t2;
  MPI_OK(MPI_Type_free(&t2));
  ht3 = t3;
  MPI_OK(MPI_Type_free(&t3));
  /* all freed: every attribute deleted exactly once, with the right type and value */
  {
    MPI_Datatype tn[3] = {ht, ht2, ht3}, tl[2] = {ht, ht2}, td[3] = {ht, ht2, ht3};
    void* vn[3] = {SLOT(30), SLOT(31), SLOT(32)};
    void* vl[2] = {SLOT(40), SLOT(45)};
    void* vd[3] = {SLOT(50), SLOT(50), SLOT(50)};
    expect_delete_log(&next, 3, tn, vn, "all freed");
    expect_delete_log(&none, 2, tl, vl, "all freed");
    expect_delete_log(&dupfn, 3, td, vd, "all freed (MPI_TYPE_DUP_FN)");
    CHECK(next.copies == 2 && none.copies == 2 && dupfn.copies == 0, "no copy callback on free");
  }
  MPI_OK(MPI_Type_free_keyval(&next.keyval));
  MPI_OK(MPI_Type_free_keyval(&none.keyval));
  MPI_OK(MPI_Type_free_keyval(&dupfn.keyval));
  MPI_OK(MPI_Type_free_keyval(&nulls.keyval));
}

/* ---- 3. a predefined type ---------------------------------------------------------------------------------- */
static void test_predefined(void) {
  kstate k;
  MPI_Datatype d, old;
  new_keyval(&k, copy_fn, delete_fn, COPY_NEXT);
  MPI_OK(MPI_Type_set_attr(MPI_INT, k.keyval, SLOT(70)));
  expect_attr(MPI_INT, k.keyval, SLOT(70), "MPI_INT");
  expect_no_attr(MPI_FLOAT, k.keyval, "MPI_FLOAT");
  expect_no_attr(MPI_UNSIGNED, k.keyval, "MPI_UNSIGNED");
  MPI_OK(MPI_Type_dup(MPI_INT, &d));
  expect_calls(&k, 1, 0, "dup MPI_INT");
  expect_copied(&k, MPI_INT, SLOT(70), "dup MPI_INT");
  expect_attr(d, k.keyval, SLOT(71), "dup of MPI_INT");
  old = d;
  MPI_OK(MPI_Type_free(&d));
  expect_calls(&k, 1, 1, "free dup of MPI_INT");
  expect_deleted(&k, old, SLOT(71), "free dup of MPI_INT");
  expect_attr(MPI_INT, k.keyval, SLOT(70), "MPI_INT after its duplicate is freed");
  MPI_OK(MPI_Type_set_attr(MPI_INT, k.keyval, SLOT(80)));
  expect_calls(&k, 1, 2, "replace on MPI_INT");
  expect_deleted(&k, MPI_INT, SLOT(70), "replace on MPI_INT");
  MPI_OK(MPI_Type_delete_attr(MPI_INT, k.keyval));
  expect_calls(&k, 1, 3, "delete on MPI_INT");
  expect_deleted(&k, MPI_INT, SLOT(80), "delete on MPI_INT");
  expect_no_attr(MPI_INT, k.keyval, "MPI_INT after delete");
  MPI_OK(MPI_Type_free_keyval(&k.keyval));
}

/* ---- 4. callbacks returning errors ---------------------------------------------------------------------- */
static void test_callback_errors(void) {
  kstate f, g;
  MPI_Datatype t = make_type(), u = make_type(), nt = MPI_DATATYPE_NULL;
  int rc, flag;
  new_keyval(&f, copy_fn, delete_fn, COPY_FAIL);
  new_keyval(&g, copy_fn, delete_fn, COPY_NEXT);
  MPI_OK(MPI_Type_set_attr(t, f.keyval, SLOT(90)));
  MPI_OK(MPI_Type_set_attr(u, g.keyval, SLOT(100)));
  errors_return(1);
  /* a failing copy callback: MPI_Type_dup fails (6.7.2: "in which case MPI_COMM_DUP will fail") */
  rc = MPI_Type_dup(t, &nt);
  CHECK(rc != MPI_SUCCESS, "MPI_Type_dup succeeded although a copy callback failed");
  expect_calls(&f, 1, 0, "failed dup");
  expect_copied(&f, t, SLOT(90), "failed dup");
  expect_attr(t, f.keyval, SLOT(90), "original after a failed dup");
  /* a failing delete callback: MPI_Type_delete_attr fails (6.7.2: "The call will fail if ...") */
  f.delete_fails = 1;
  rc = MPI_Type_delete_attr(t, f.keyval);
  CHECK(rc != MPI_SUCCESS, "MPI_Type_delete_attr succeeded although the delete callback failed");
  expect_calls(&f, 1, 1, "failed delete");
  expect_deleted(&f, t, SLOT(90), "failed delete");
  /* ... and so does the MPI_Type_set_attr that replaces a value (6.7.2, MPI_COMM_SET_ATTR) */
  g.delete_fails = 1;
  rc = MPI_Type_set_attr(u, g.keyval, SLOT(110));
  CHECK(rc != MPI_SUCCESS, "MPI_Type_set_attr succeeded although the delete callback of the old value failed");
  expect_calls(&g, 0, 1, "failed replace");
  expect_deleted(&g, u, SLOT(100), "failed replace");
  errors_return(0);
  /* clean up: what is left after a failure is not specified, so delete whatever is still there */
  f.delete_fails = g.delete_fails = 0;
  (void)get(t, f.keyval, &flag);
  if (flag) MPI_OK(MPI_Type_delete_attr(t, f.keyval));
  (void)get(u, g.keyval, &flag);
  if (flag) MPI_OK(MPI_Type_delete_attr(u, g.keyval));
  MPI_OK(MPI_Type_free(&t));
  MPI_OK(MPI_Type_free(&u));
  MPI_OK(MPI_Type_free_keyval(&f.keyval));
  MPI_OK(MPI_Type_free_keyval(&g.keyval));
}

/* ---- 5. freeing a keyval still in use; MPI_KEYVAL_INVALID ---------------------------------------------- */
static void test_keyval_free(void) {
  kstate k, other;
  MPI_Datatype t1 = make_type(), t2 = make_type(), old;
  int saved, rc, flag;
  void* v;
  new_keyval(&k, copy_fn, delete_fn, COPY_NEXT);
  new_keyval(&other, copy_fn, delete_fn, COPY_NEXT);
  MPI_OK(MPI_Type_set_attr(t1, k.keyval, SLOT(120)));
  MPI_OK(MPI_Type_set_attr(t2, k.keyval, SLOT(130)));
  saved = k.keyval;
  MPI_OK(MPI_Type_free_keyval(&k.keyval));
  CHECK(k.keyval == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval left keyval %d", k.keyval);
  k.keyval = saved; /* for expect_deleted */
  expect_calls(&k, 0, 0, "free keyval in use");
  /* the attributes stay until deleted explicitly or with their type (6.7.2, MPI_COMM_FREE_KEYVAL) */
  MPI_OK(MPI_Type_delete_attr(t1, saved));
  expect_calls(&k, 0, 1, "delete with a freed keyval");
  expect_deleted(&k, t1, SLOT(120), "delete with a freed keyval");
  old = t2;
  MPI_OK(MPI_Type_free(&t2));
  expect_calls(&k, 0, 2, "free a type holding a freed keyval");
  expect_deleted(&k, old, SLOT(130), "free a type holding a freed keyval");
  /* a keyval created since works as usual beside it */
  MPI_OK(MPI_Type_set_attr(t1, other.keyval, SLOT(140)));
  expect_attr(t1, other.keyval, SLOT(140), "another keyval");
  /* MPI_KEYVAL_INVALID is erroneous (6.7.2); detected, it is MPI_ERR_KEYVAL (6.7.5) */
  errors_return(1);
  flag = -1;
  v = NULL;
  rc = MPI_Type_get_attr(t1, MPI_KEYVAL_INVALID, &v, &flag);
  CHECK((rc != MPI_SUCCESS && (err_class(rc) == MPI_ERR_KEYVAL || OMPI_BUG)) || (rc == MPI_SUCCESS && flag == 0),
        "MPI_Type_get_attr(MPI_KEYVAL_INVALID): error %d class %d flag %d", rc, err_class(rc), flag);
  rc = MPI_Type_set_attr(t1, MPI_KEYVAL_INVALID, SLOT(150));
  CHECK(rc != MPI_SUCCESS ? err_class(rc) == MPI_ERR_KEYVAL || OMPI_BUG : 1,
        "MPI_Type_set_attr(MPI_KEYVAL_INVALID): class %d", err_class(rc));
  rc = MPI_Type_delete_attr(t1, MPI_KEYVAL_INVALID);
  CHECK(rc != MPI_SUCCESS ? err_class(rc) == MPI_ERR_KEYVAL || OMPI_BUG : 1,
        "MPI_Type_delete_attr(MPI_KEYVAL_INVALID): class %d", err_class(rc));
  errors_return(0);
  expect_attr(t1, other.keyval, SLOT(140), "after the MPI_KEYVAL_INVALID calls");
  expect_calls(&other, 0, 0, "after the MPI_KEYVAL_INVALID calls");
  old = t1;
  MPI_OK(MPI_Type_free(&t1));
  expect_calls(&other, 0, 1, "free");
  expect_deleted(&other, old, SLOT(140), "free");
  expect_calls(&k, 0, 2, "nothing more for the freed keyval");
  MPI_OK(MPI_Type_free_keyval(&other.keyval));
}

/* ---- 6. many keyvals on one type ------------------------------------------------------------------------ */
static void test_many(void) {
  enum { N = 40 };
  static kstate ks[N];
  MPI_Datatype t = make_type(), d, old_t, old_d;
  int i;
  for (i = 0; i < N; ++i) {
    new_keyval(&ks[i], copy_fn, delete_fn, i % 3 == 0 ? COPY_NONE : COPY_NEXT);
    MPI_OK(MPI_Type_set_attr(t, ks[i].keyval, SLOT(160 + 2 * i)));
  }
  MPI_OK(MPI_Type_dup(t, &d));
  for (i = 0; i < N; ++i) {
    expect_calls(&ks[i], 1, 0, "many: dup");
    expect_attr(t, ks[i].keyval, SLOT(160 + 2 * i), "many: original");
    if (i % 3 == 0)
      expect_no_attr(d, ks[i].keyval, "many: not copied");
    else
      expect_attr(d, ks[i].keyval, SLOT(161 + 2 * i), "many: copied");
  }
  /* delete every other one from the original */
  for (i = 0; i < N; i += 2) {
    MPI_OK(MPI_Type_delete_attr(t, ks[i].keyval));
    expect_calls(&ks[i], 1, 1, "many: delete");
    expect_deleted(&ks[i], t, SLOT(160 + 2 * i), "many: delete");
  }
  old_t = t;
  old_d = d;
  MPI_OK(MPI_Type_free(&t)); /* its duplicate alive: the delete callbacks may wait (see test_dup) */
  for (i = 1; i < N; i += 2) expect_at_most(&ks[i], 1, 1, "many: original freed");
  MPI_OK(MPI_Type_free(&d));
  for (i = 0; i < N; ++i) {
    MPI_Datatype types[2] = {old_t, old_d};
    void* vals[2] = {SLOT(160 + 2 * i), SLOT(161 + 2 * i)};
    expect_delete_log(&ks[i], i % 3 == 0 ? 1 : 2, types, vals, "many: all freed");
    MPI_OK(MPI_Type_free_keyval(&ks[i].keyval));
  }
}

/* ---- 7. names -------------------------------------------------------------------------------------------- */
static void expect_name(MPI_Datatype t, const char* want, const char* what) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  memset(name, 'x', sizeof name);
  MPI_OK(MPI_Type_get_name(t, name, &len));
  CHECK(len >= 0 && len < MPI_MAX_OBJECT_NAME && name[len] == '\0', "%s: name length %d not terminated", what, len);
  CHECK(strcmp(name, want) == 0 && len == (int)strlen(want), "%s: name \"%s\" (length %d), expected \"%s\"", what,
        name, len, want);
}

static void test_names(void) {
  MPI_Datatype t = make_type(), d, di;
  expect_name(MPI_INT, "MPI_INT", "predefined MPI_INT");
  expect_name(MPI_DOUBLE, "MPI_DOUBLE", "predefined MPI_DOUBLE");
  expect_name(t, "", "derived type without a name");
  MPI_OK(MPI_Type_set_name(t, "my vector"));
  expect_name(t, "my vector", "set");
  MPI_OK(MPI_Type_set_name(t, "renamed"));
  expect_name(t, "renamed", "set again");
  /* 6.8: names do not propagate when the object is duplicated */
  MPI_OK(MPI_Type_dup(t, &d));
  if (!OMPI_BUG) expect_name(d, "", "duplicate of a named type");
  MPI_OK(MPI_Type_dup(MPI_INT, &di));
  if (!OMPI_BUG) expect_name(di, "", "duplicate of MPI_INT");
  MPI_OK(MPI_Type_set_name(di, "my int"));
  expect_name(di, "my int", "duplicate named");
  expect_name(MPI_INT, "MPI_INT", "MPI_INT after naming its duplicate");
  expect_name(t, "renamed", "original after dup");
  MPI_OK(MPI_Type_free(&di));
  MPI_OK(MPI_Type_free(&d));
  MPI_OK(MPI_Type_free(&t));
}

/* ---- 8. types with attributes in messages; the duplicate keeps the committed state --------------------- */
static void test_messages(void) {
  kstate k;
  MPI_Datatype t = make_type(), d; /* vector(3, 2, 4): elements 0 1 4 5 8 9 */
  const int peer = (rank ^ 1) < size ? (rank ^ 1) : rank;
  int sbuf[10], rbuf[10], i;
  static const int map[6] = {0, 1, 4, 5, 8, 9};
  MPI_Status st;
  new_keyval(&k, copy_fn, delete_fn, COPY_NEXT);
  MPI_OK(MPI_Type_set_attr(t, k.keyval, SLOT(250)));
  MPI_OK(MPI_Type_dup(t, &d)); /* not committed here: it must be already (MPI-3.1 4.1.10) */
  for (i = 0; i < 10; ++i) {
    sbuf[i] = rank * 100 + i;
    rbuf[i] = -1;
  }
  MPI_OK(MPI_Sendrecv(sbuf, 1, t, peer, 7, rbuf, 1, d, peer, 7, MPI_COMM_WORLD, &st));
  for (i = 0; i < 10; ++i) {
    int want = -1, j;
    for (j = 0; j < 6; ++j)
      if (map[j] == i) want = peer * 100 + i;
    CHECK(rbuf[i] == want, "message through attributed types: element %d is %d, expected %d", i, rbuf[i], want);
  }
  expect_attr(t, k.keyval, SLOT(250), "after a message");
  expect_attr(d, k.keyval, SLOT(251), "after a message");
  expect_calls(&k, 1, 0, "a message runs no callback");
  MPI_OK(MPI_Type_free(&d));
  MPI_OK(MPI_Type_free(&t));
  expect_calls(&k, 1, 2, "messages: freed");
  MPI_OK(MPI_Type_free_keyval(&k.keyval));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_basic();
  test_dup();
  test_predefined();
  test_callback_errors();
  test_keyval_free();
  test_many();
  test_names();
  test_messages();
  CHECK(!bad_extra_state, "a callback got a wrong extra_state");
  /* every rank checks its own attributes; a closing exchange so rank 0 reports only once all are done */
  if (size > 1) {
    int token = 0, i;
    if (rank == 0) {
      for (i = 1; i < size; ++i) MPI_OK(MPI_Recv(&token, 1, MPI_INT, i, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
      MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
    }
  }
  if (rank == 0) printf("type_attrs: OK (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
