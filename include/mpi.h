/*
 * mpi.h: the C interface of fabmpi.
 *
 * Handle values, MPI_Status layout and integer types follow the MPICH ABI (shared by MPICH, Intel MPI,
 * MVAPICH, Cray MPICH), so a program compiled against MPICH runs on fabmpi's libmpi.so.12 unchanged.
 * Only what fabmpi implements is declared here: a missing name means the feature is absent, not faked.
 */
#ifndef FABMPI_MPI_H_INCLUDED
#define FABMPI_MPI_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#if defined(__GNUC__)
#define FABMPI_PUBLIC __attribute__((visibility("default")))
#else
#define FABMPI_PUBLIC
#endif

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

#define FABMPI 1
#define FABMPI_VERSION "0.1.0"
#define FABMPI_NUMVERSION 100

/* ---------------------------------------------------------------- basic types */
typedef int MPI_Datatype;
typedef int MPI_Comm;
typedef int MPI_Group;
typedef int MPI_Win;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Request;
typedef int MPI_Message;
typedef int MPI_Info;
typedef int MPI_Session;
typedef int MPI_Fint;
typedef long MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;

typedef struct MPI_Status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
} MPI_Status;

/* ---------------------------------------------------------------- null handles */
#define MPI_COMM_NULL       ((MPI_Comm)0x04000000)
#define MPI_OP_NULL         ((MPI_Op)0x18000000)
#define MPI_GROUP_NULL      ((MPI_Group)0x08000000)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0x0c000000)
#define MPI_REQUEST_NULL    ((MPI_Request)0x2c000000)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0x14000000)
#define MPI_MESSAGE_NULL    ((MPI_Message)0x2c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c000000)
#define MPI_INFO_NULL       ((MPI_Info)0x1c000000)
#define MPI_INFO_ENV        ((MPI_Info)0x5c000001)  /* how the process was started (MPI-3.1 10.3.2) */
#define MPI_WIN_NULL        ((MPI_Win)0x20000000)

/* ---------------------------------------------------------------- communicators and groups */
#define MPI_COMM_WORLD  ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF   ((MPI_Comm)0x44000001)
#define MPI_GROUP_EMPTY ((MPI_Group)0x48000000)

#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

#define MPI_COMM_TYPE_SHARED      1
#define MPI_COMM_TYPE_HW_GUIDED   2  /* MPI-4.0: info key "mpi_hw_resource_type" names the resource */
#define MPI_COMM_TYPE_HW_UNGUIDED 3  /* MPI-4.0: the coarsest level that splits comm into strict subsets */

/* topology kinds (MPI_Topo_test) */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3

/* ---------------------------------------------------------------- predefined datatypes */
#define MPI_CHAR               ((MPI_Datatype)0x4c000101)
#define MPI_SIGNED_CHAR        ((MPI_Datatype)0x4c000118)
#define MPI_UNSIGNED_CHAR      ((MPI_Datatype)0x4c000102)
#define MPI_BYTE               ((MPI_Datatype)0x4c00010d)
#define MPI_WCHAR              ((MPI_Datatype)0x4c00040e)
#define MPI_SHORT              ((MPI_Datatype)0x4c000203)
#define MPI_UNSIGNED_SHORT     ((MPI_Datatype)0x4c000204)
#define MPI_INT                ((MPI_Datatype)0x4c000405)
#define MPI_UNSIGNED           ((MPI_Datatype)0x4c000406)
#define MPI_LONG               ((MPI_Datatype)0x4c000807)
#define MPI_UNSIGNED_LONG      ((MPI_Datatype)0x4c000808)
#define MPI_FLOAT              ((MPI_Datatype)0x4c00040a)
#define MPI_DOUBLE             ((MPI_Datatype)0x4c00080b)
#define MPI_LONG_DOUBLE        ((MPI_Datatype)0x4c00100c)
#define MPI_LONG_LONG_INT      ((MPI_Datatype)0x4c000809)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)0x4c000819)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_PACKED             ((MPI_Datatype)0x4c00010f)
#define MPI_LB                 ((MPI_Datatype)0x4c000010)
#define MPI_UB                 ((MPI_Datatype)0x4c000011)

/* pair types for MAXLOC / MINLOC: struct { value; int loc; } */
#define MPI_FLOAT_INT          ((MPI_Datatype)0x8c000000)
#define MPI_DOUBLE_INT         ((MPI_Datatype)0x8c000001)
#define MPI_LONG_INT           ((MPI_Datatype)0x8c000002)
#define MPI_SHORT_INT          ((MPI_Datatype)0x8c000003)
#define MPI_2INT               ((MPI_Datatype)0x4c000816)
#define MPI_LONG_DOUBLE_INT    ((MPI_Datatype)0x8c000004)

#define MPI_INT8_T             ((MPI_Datatype)0x4c000137)
#define MPI_INT16_T            ((MPI_Datatype)0x4c000238)
#define MPI_INT32_T            ((MPI_Datatype)0x4c000439)
#define MPI_INT64_T            ((MPI_Datatype)0x4c00083a)
#define MPI_UINT8_T            ((MPI_Datatype)0x4c00013b)
#define MPI_UINT16_T           ((MPI_Datatype)0x4c00023c)
#define MPI_UINT32_T           ((MPI_Datatype)0x4c00043d)
#define MPI_UINT64_T           ((MPI_Datatype)0x4c00083e)

#define MPI_C_BOOL                ((MPI_Datatype)0x4c00013f)
#define MPI_C_FLOAT_COMPLEX       ((MPI_Datatype)0x4c000840)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001041)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002042)
#define MPIX_C_FLOAT16            ((MPI_Datatype)0x4c000246)
#define MPIX_BFLOAT16             ((MPI_Datatype)0x4c000247)

/* Fortran's named types, usable from C (gfortran's default kinds; MPICH's handle values) */
#define MPI_CHARACTER          ((MPI_Datatype)0x4c00011a)
#define MPI_INTEGER            ((MPI_Datatype)0x4c00041b)
#define MPI_REAL               ((MPI_Datatype)0x4c00041c)
#define MPI_LOGICAL            ((MPI_Datatype)0x4c00041d)
#define MPI_COMPLEX            ((MPI_Datatype)0x4c00081e)
#define MPI_DOUBLE_PRECISION   ((MPI_Datatype)0x4c00081f)
#define MPI_2INTEGER           ((MPI_Datatype)0x4c000820)
#define MPI_2REAL              ((MPI_Datatype)0x4c000821)
#define MPI_DOUBLE_COMPLEX     ((MPI_Datatype)0x4c001022)
#define MPI_2DOUBLE_PRECISION  ((MPI_Datatype)0x4c001023)
#define MPI_REAL4              ((MPI_Datatype)0x4c000427)
#define MPI_COMPLEX8           ((MPI_Datatype)0x4c000828)
#define MPI_REAL8              ((MPI_Datatype)0x4c000829)
#define MPI_COMPLEX16          ((MPI_Datatype)0x4c00102a)
#define MPI_INTEGER1           ((MPI_Datatype)0x4c00012d)
#define MPI_INTEGER2           ((MPI_Datatype)0x4c00022f)
#define MPI_INTEGER4           ((MPI_Datatype)0x4c000430)
#define MPI_INTEGER8           ((MPI_Datatype)0x4c000831)

#define MPI_AINT               ((MPI_Datatype)0x4c000843)
#define MPI_OFFSET             ((MPI_Datatype)0x4c000844)
#define MPI_COUNT              ((MPI_Datatype)0x4c000845)

#define MPI_CXX_BOOL                ((MPI_Datatype)0x4c000133)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)0x4c000834)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)0x4c001035)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)0x4c002036)

#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

enum MPIR_Combiner_enum {
    MPI_COMBINER_NAMED            = 1,
    MPI_COMBINER_DUP              = 2,
    MPI_COMBINER_CONTIGUOUS       = 3,
    MPI_COMBINER_VECTOR           = 4,
    MPI_COMBINER_HVECTOR_INTEGER  = 5,
    MPI_COMBINER_HVECTOR          = 6,
    MPI_COMBINER_INDEXED          = 7,
    MPI_COMBINER_HINDEXED_INTEGER = 8,
    MPI_COMBINER_HINDEXED         = 9,
    MPI_COMBINER_INDEXED_BLOCK    = 10,
    MPI_COMBINER_STRUCT_INTEGER   = 11,
    MPI_COMBINER_STRUCT           = 12,
    MPI_COMBINER_SUBARRAY         = 13,
    MPI_COMBINER_DARRAY           = 14,
    MPI_COMBINER_F90_REAL         = 15,
    MPI_COMBINER_F90_COMPLEX      = 16,
    MPI_COMBINER_F90_INTEGER      = 17,
    MPI_COMBINER_RESIZED          = 18,
    MPI_COMBINER_HINDEXED_BLOCK   = 19
};

#define MPI_ORDER_C       56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* ---------------------------------------------------------------- reduction operations */
#define MPI_MAX     ((MPI_Op)0x58000001)
#define MPI_MIN     ((MPI_Op)0x58000002)
#define MPI_SUM     ((MPI_Op)0x58000003)
#define MPI_PROD    ((MPI_Op)0x58000004)
#define MPI_LAND    ((MPI_Op)0x58000005)
#define MPI_BAND    ((MPI_Op)0x58000006)
#define MPI_LOR     ((MPI_Op)0x58000007)
#define MPI_BOR     ((MPI_Op)0x58000008)
#define MPI_LXOR    ((MPI_Op)0x58000009)
#define MPI_BXOR    ((MPI_Op)0x5800000a)
#define MPI_MINLOC  ((MPI_Op)0x5800000b)
#define MPI_MAXLOC  ((MPI_Op)0x5800000c)
#define MPI_REPLACE ((MPI_Op)0x5800000d)
#define MPI_NO_OP   ((MPI_Op)0x5800000e)

typedef void (MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

/* ---------------------------------------------------------------- attributes */
#define MPI_TAG_UB          0x64400001
#define MPI_HOST            0x64400003
#define MPI_IO              0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE   0x64400009
#define MPI_LASTUSEDCODE    0x6440000b
#define MPI_APPNUM          0x6440000d
#define MPI_KEYVAL_INVALID  0x24000000

typedef int (MPI_Comm_copy_attr_function)(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                            void *extra_state);
#define MPI_COMM_NULL_COPY_FN   ((MPI_Comm_copy_attr_function *)0)
#define MPI_COMM_NULL_DELETE_FN ((MPI_Comm_delete_attr_function *)0)
#define MPI_COMM_DUP_FN         ((MPI_Comm_copy_attr_function *)MPIR_Dup_fn)
FABMPI_PUBLIC int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                              void *attribute_val_out, int *flag);

/* ---------------------------------------------------------------- limits and special values */
#define MPI_MAX_PROCESSOR_NAME         128
#define MPI_MAX_LIBRARY_VERSION_STRING 8192
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_OBJECT_NAME            128
#define MPI_MAX_INFO_KEY               255
#define MPI_MAX_INFO_VAL               1024
#define MPI_UNDEFINED                  (-32766)
#define MPI_BSEND_OVERHEAD             96
#define MPI_BOTTOM                     ((void *)0)
#define MPI_IN_PLACE                   ((void *)-1)
#define MPI_PROC_NULL                  (-1)
#define MPI_ANY_SOURCE                 (-2)
#define MPI_ROOT                       (-3)
#define MPI_ANY_TAG                    (-1)
#define MPI_STATUS_IGNORE              ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE            ((MPI_Status *)1)
#define MPI_ERRCODES_IGNORE            ((int *)0)
#define MPI_ARGV_NULL                  ((char **)0)
#define MPI_ARGVS_NULL                 ((char ***)0)

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* ---------------------------------------------------------------- error handlers and classes */
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x54000001)
#define MPI_ERRORS_ABORT     ((MPI_Errhandler)0x54000003)

typedef void (MPI_Comm_errhandler_function)(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void (MPI_Win_errhandler_function)(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

#define MPI_SUCCESS          0
#define MPI_ERR_BUFFER       1
#define MPI_ERR_COUNT        2
#define MPI_ERR_TYPE         3
#define MPI_ERR_TAG          4
#define MPI_ERR_COMM         5
#define MPI_ERR_RANK         6
#define MPI_ERR_ROOT         7
#define MPI_ERR_GROUP        8
#define MPI_ERR_OP           9
#define MPI_ERR_TOPOLOGY    10
#define MPI_ERR_DIMS        11
#define MPI_ERR_ARG         12
#define MPI_ERR_UNKNOWN     13
#define MPI_ERR_TRUNCATE    14
#define MPI_ERR_OTHER       15
#define MPI_ERR_INTERN      16
#define MPI_ERR_IN_STATUS   17
#define MPI_ERR_PENDING     18
#define MPI_ERR_REQUEST     19
#define MPI_ERR_ACCESS      20
#define MPI_ERR_AMODE       21
#define MPI_ERR_BAD_FILE    22
#define MPI_ERR_CONVERSION  23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE        27
#define MPI_ERR_INFO        28
#define MPI_ERR_INFO_KEY    29
#define MPI_ERR_INFO_VALUE  30
#define MPI_ERR_INFO_NOKEY  31
#define MPI_ERR_IO          32
#define MPI_ERR_NAME        33
#define MPI_ERR_NO_MEM      34
#define MPI_ERR_NOT_SAME    35
#define MPI_ERR_NO_SPACE    36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT        38
#define MPI_ERR_QUOTA       39
#define MPI_ERR_READ_ONLY   40
#define MPI_ERR_SERVICE     41
#define MPI_ERR_SPAWN       42
#define MPI_ERR_UNSUPPORTED_DATAREP   43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN         45
#define MPI_ERR_BASE        46
#define MPI_ERR_LOCKTYPE    47
#define MPI_ERR_KEYVAL      48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC    50
#define MPI_ERR_SIZE        51
#define MPI_ERR_DISP        52
#define MPI_ERR_ASSERT      53
#define MPI_ERR_RMA_RANGE   55
#define MPI_ERR_RMA_ATTACH  56
#define MPI_ERR_RMA_SHARED  57
#define MPI_ERR_RMA_FLAVOR  58
#define MPI_ERR_SESSION     75
#define MPI_ERR_PROC_ABORTED 76
#define MPI_ERR_VALUE_TOO_LARGE 77
/* MPI_T error classes (MPI-3.1 14.3.9): MPICH's numbers, which no class above uses. */
#define MPI_T_ERR_MEMORY            59
#define MPI_T_ERR_NOT_INITIALIZED   60
#define MPI_T_ERR_CANNOT_INIT       61
#define MPI_T_ERR_INVALID_INDEX     62
#define MPI_T_ERR_INVALID_ITEM      63
#define MPI_T_ERR_INVALID_HANDLE    64
#define MPI_T_ERR_OUT_OF_HANDLES    65
#define MPI_T_ERR_OUT_OF_SESSIONS   66
#define MPI_T_ERR_INVALID_SESSION   67
#define MPI_T_ERR_CVAR_SET_NOT_NOW  68
#define MPI_T_ERR_CVAR_SET_NEVER    69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE     71
#define MPI_T_ERR_PVAR_NO_ATOMIC    72
#define MPI_T_ERR_INVALID_NAME      73
#define MPI_T_ERR_INVALID           74
#define MPI_ERR_LASTCODE    0x3fffffff

/* ================================================================ functions
 * Every MPI_X is also exported as PMPI_X (the profiling interface). Sections per subsystem. */

/* ---- environment (runtime/binding/env.cpp) */
FABMPI_PUBLIC int MPI_Init(int *argc, char ***argv);
FABMPI_PUBLIC int PMPI_Init(int *argc, char ***argv);
FABMPI_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
FABMPI_PUBLIC int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);
FABMPI_PUBLIC int MPI_Finalize(void);
FABMPI_PUBLIC int PMPI_Finalize(void);
FABMPI_PUBLIC int MPI_Initialized(int *flag);
FABMPI_PUBLIC int PMPI_Initialized(int *flag);
FABMPI_PUBLIC int MPI_Finalized(int *flag);
FABMPI_PUBLIC int PMPI_Finalized(int *flag);
FABMPI_PUBLIC int MPI_Query_thread(int *provided);
FABMPI_PUBLIC int PMPI_Query_thread(int *provided);
FABMPI_PUBLIC int MPI_Is_thread_main(int *flag);
FABMPI_PUBLIC int PMPI_Is_thread_main(int *flag);
FABMPI_PUBLIC int MPI_Abort(MPI_Comm comm, int errorcode);
FABMPI_PUBLIC int PMPI_Abort(MPI_Comm comm, int errorcode);
FABMPI_PUBLIC int MPI_Get_version(int *version, int *subversion);
FABMPI_PUBLIC int PMPI_Get_version(int *version, int *subversion);
FABMPI_PUBLIC int MPI_Get_library_version(char *version, int *resultlen);
FABMPI_PUBLIC int PMPI_Get_library_version(char *version, int *resultlen);
FABMPI_PUBLIC int MPI_Get_processor_name(char *name, int *resultlen);
FABMPI_PUBLIC int PMPI_Get_processor_name(char *name, int *resultlen);
FABMPI_PUBLIC double MPI_Wtime(void);
FABMPI_PUBLIC double PMPI_Wtime(void);
FABMPI_PUBLIC double MPI_Wtick(void);
FABMPI_PUBLIC double PMPI_Wtick(void);

/* ---- fabmpi extension: start without a launcher, exchanging addresses through the caller's key-value
 * store (how torch_fabmpi starts under torchrun). The callbacks must stay valid until MPI_Finalize
 * returns: peers' addresses are looked up on first use. See docs/torch.md. */
#define MPIX_STORE_BOOTSTRAP_VERSION 1
typedef struct MPIX_Store_bootstrap {
    int version;    /* MPIX_STORE_BOOTSTRAP_VERSION */
    int rank;       /* this process's rank in MPI_COMM_WORLD, 0 <= rank < size */
    int size;       /* size of MPI_COMM_WORLD */
    int local_rank; /* rank among the processes on this node, -1 if unknown */
    int local_size; /* processes on this node, -1 if unknown */
    int node_id;    /* index of this node as the launcher numbers them, -1 if unknown (hostnames are used) */
    int timeout_ms; /* how long get() and fence() may block; <= 0 means no limit */
    void *ctx;      /* passed unchanged to every callback */
    /* Store value[0..len) under key (NUL-terminated, at most 255 bytes). 0 on success. */
    int (*put)(void *ctx, const char *key, const void *value, size_t len);
    /* Block until key exists (or timeout), copy min(len, capacity) bytes to value and set *len to the
     * value's full length (the library retries with a larger buffer when *len > capacity). 0 on success. */
    int (*get)(void *ctx, const char *key, void *value, size_t capacity, size_t *len);
    /* Return once every rank has called fence() the same number of times. May be NULL: the library then
     * builds it from put/get. 0 on success. */
    int (*fence)(void *ctx);
} MPIX_Store_bootstrap;
FABMPI_PUBLIC int MPIX_Init_with_store(int *argc, char ***argv, int required, int *provided,
                                       const MPIX_Store_bootstrap *bootstrap);
FABMPI_PUBLIC int PMPIX_Init_with_store(int *argc, char ***argv, int required, int *provided,
                                        const MPIX_Store_bootstrap *bootstrap);

/* ---- communicators: rank and size (runtime/binding/comm.cpp) */
FABMPI_PUBLIC int MPI_Comm_rank(MPI_Comm comm, int *rank);
FABMPI_PUBLIC int PMPI_Comm_rank(MPI_Comm comm, int *rank);
FABMPI_PUBLIC int MPI_Comm_size(MPI_Comm comm, int *size);
FABMPI_PUBLIC int PMPI_Comm_size(MPI_Comm comm, int *size);
FABMPI_PUBLIC int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
FABMPI_PUBLIC int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val);
FABMPI_PUBLIC int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
FABMPI_PUBLIC int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval);
FABMPI_PUBLIC int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                         MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                         int *comm_keyval, void *extra_state);
FABMPI_PUBLIC int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                          MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                          int *comm_keyval, void *extra_state);
FABMPI_PUBLIC int MPI_Comm_free_keyval(int *comm_keyval);
FABMPI_PUBLIC int PMPI_Comm_free_keyval(int *comm_keyval);

/* ---- error handling (runtime/binding/errhandler.cpp) */
FABMPI_PUBLIC int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
FABMPI_PUBLIC int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
FABMPI_PUBLIC int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
FABMPI_PUBLIC int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
FABMPI_PUBLIC int MPI_Errhandler_free(MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Errhandler_free(MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Error_string(int errorcode, char *string, int *resultlen);
FABMPI_PUBLIC int PMPI_Error_string(int errorcode, char *string, int *resultlen);
FABMPI_PUBLIC int MPI_Error_class(int errorcode, int *errorclass);
FABMPI_PUBLIC int PMPI_Error_class(int errorcode, int *errorclass);
FABMPI_PUBLIC int MPI_Add_error_class(int *errorclass);
FABMPI_PUBLIC int PMPI_Add_error_class(int *errorclass);
FABMPI_PUBLIC int MPI_Add_error_code(int errorclass, int *errorcode);
FABMPI_PUBLIC int PMPI_Add_error_code(int errorclass, int *errorcode);
FABMPI_PUBLIC int MPI_Add_error_string(int errorcode, const char *string);
FABMPI_PUBLIC int PMPI_Add_error_string(int errorcode, const char *string);

/* ---- info objects (runtime/binding/info.cpp) */
FABMPI_PUBLIC int MPI_Info_create(MPI_Info *info);
FABMPI_PUBLIC int PMPI_Info_create(MPI_Info *info);
FABMPI_PUBLIC int MPI_Info_set(MPI_Info info, const char *key, const char *value);
FABMPI_PUBLIC int PMPI_Info_set(MPI_Info info, const char *key, const char *value);
FABMPI_PUBLIC int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
FABMPI_PUBLIC int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag);
FABMPI_PUBLIC int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
FABMPI_PUBLIC int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag);
FABMPI_PUBLIC int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
FABMPI_PUBLIC int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag);
FABMPI_PUBLIC int MPI_Info_get_nkeys(MPI_Info info, int *nkeys);
FABMPI_PUBLIC int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys);
FABMPI_PUBLIC int MPI_Info_get_nthkey(MPI_Info info, int n, char *key);
FABMPI_PUBLIC int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key);
FABMPI_PUBLIC int MPI_Info_delete(MPI_Info info, const char *key);
FABMPI_PUBLIC int PMPI_Info_delete(MPI_Info info, const char *key);
FABMPI_PUBLIC int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
FABMPI_PUBLIC int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo);
FABMPI_PUBLIC int MPI_Info_free(MPI_Info *info);
FABMPI_PUBLIC int PMPI_Info_free(MPI_Info *info);
/* MPI-4.0 11.4: how this process was started (command, argv, maxprocs, host, wdir, thread_level). */
FABMPI_PUBLIC int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info);
FABMPI_PUBLIC int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info);

/* ---- handle conversion (identity under this ABI) */
#define MPI_Comm_c2f(h)       ((MPI_Fint)(h))
#define MPI_Comm_f2c(h)       ((MPI_Comm)(h))
#define MPI_Type_c2f(h)       ((MPI_Fint)(h))
#define MPI_Type_f2c(h)       ((MPI_Datatype)(h))
#define MPI_Group_c2f(h)      ((MPI_Fint)(h))
#define MPI_Group_f2c(h)      ((MPI_Group)(h))
#define MPI_Info_c2f(h)       ((MPI_Fint)(h))
#define MPI_Info_f2c(h)       ((MPI_Info)(h))
#define MPI_Request_c2f(h)    ((MPI_Fint)(h))
#define MPI_Request_f2c(h)    ((MPI_Request)(h))
#define MPI_Op_c2f(h)         ((MPI_Fint)(h))
#define MPI_Op_f2c(h)         ((MPI_Op)(h))
#define MPI_Errhandler_c2f(h) ((MPI_Fint)(h))
#define MPI_Errhandler_f2c(h) ((MPI_Errhandler)(h))
#define MPI_Message_c2f(h)    ((MPI_Fint)(h))
#define MPI_Message_f2c(h)    ((MPI_Message)(h))
#define MPI_Win_c2f(h)        ((MPI_Fint)(h))
#define MPI_Win_f2c(h)        ((MPI_Win)(h))
#define MPI_Session_c2f(h)    ((MPI_Fint)(h))
#define MPI_Session_f2c(h)    ((MPI_Session)(h))
/* The conversions above are also functions, under both names, as the profiling interface requires of
 * anything an implementation writes as a macro (MPI-3.1 14.2.1): PMPI_Comm_c2f and the rest. */
#define FABMPI_HANDLE_CONVERSION(Kind, Handle)                                          \
  FABMPI_PUBLIC MPI_Fint (MPI_##Kind##_c2f)(Handle h);                                 \
  FABMPI_PUBLIC MPI_Fint PMPI_##Kind##_c2f(Handle h);                                  \
  FABMPI_PUBLIC Handle (MPI_##Kind##_f2c)(MPI_Fint h);                                 \
  FABMPI_PUBLIC Handle PMPI_##Kind##_f2c(MPI_Fint h);
FABMPI_HANDLE_CONVERSION(Comm, MPI_Comm)
FABMPI_HANDLE_CONVERSION(Type, MPI_Datatype)
FABMPI_HANDLE_CONVERSION(Group, MPI_Group)
FABMPI_HANDLE_CONVERSION(Info, MPI_Info)
FABMPI_HANDLE_CONVERSION(Request, MPI_Request)
FABMPI_HANDLE_CONVERSION(Op, MPI_Op)
FABMPI_HANDLE_CONVERSION(Errhandler, MPI_Errhandler)
FABMPI_HANDLE_CONVERSION(Message, MPI_Message)
FABMPI_HANDLE_CONVERSION(Win, MPI_Win)
FABMPI_HANDLE_CONVERSION(Session, MPI_Session)
#undef FABMPI_HANDLE_CONVERSION
/* MPI_File_c2f/f2c and the status conversions are functions (runtime/binding/fortran.cpp), declared with
 * MPI_File and below. A Fortran status is MPI_F_STATUS_SIZE integers laid out as MPI_Status. */
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE      2
#define MPI_F_TAG         3
#define MPI_F_ERROR       4
FABMPI_PUBLIC extern MPI_Fint *MPI_F_STATUS_IGNORE;
FABMPI_PUBLIC extern MPI_Fint *MPI_F_STATUSES_IGNORE;
FABMPI_PUBLIC int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
FABMPI_PUBLIC int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
FABMPI_PUBLIC int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
FABMPI_PUBLIC int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
/* Fortran 90 parameterized types: the predefined type of at least the precision p and decimal exponent range
 * r (MPI_UNDEFINED: any); never freed. */
FABMPI_PUBLIC int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype);

/* ---- point-to-point (runtime/binding/pt2pt.cpp, requests.cpp, bsend.cpp) */
FABMPI_PUBLIC int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Buffer_attach(void *buffer, int size);
FABMPI_PUBLIC int PMPI_Buffer_attach(void *buffer, int size);
FABMPI_PUBLIC int MPI_Buffer_detach(void *buffer_addr, int *size);
FABMPI_PUBLIC int PMPI_Buffer_detach(void *buffer_addr, int *size);
FABMPI_PUBLIC int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status);
/* MPI-4.0 3.10: one request over a send and a receive; its status is the receive's. */
FABMPI_PUBLIC int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
FABMPI_PUBLIC int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
FABMPI_PUBLIC int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status);
FABMPI_PUBLIC int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request);
FABMPI_PUBLIC int MPI_Wait(MPI_Request *request, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Wait(MPI_Request *request, MPI_Status *status);
FABMPI_PUBLIC int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
FABMPI_PUBLIC int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
FABMPI_PUBLIC int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses);
FABMPI_PUBLIC int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status *array_of_statuses);
FABMPI_PUBLIC int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status);
FABMPI_PUBLIC int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status *array_of_statuses);
FABMPI_PUBLIC int MPI_Request_free(MPI_Request *request);
FABMPI_PUBLIC int PMPI_Request_free(MPI_Request *request);
FABMPI_PUBLIC int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
FABMPI_PUBLIC int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
FABMPI_PUBLIC int MPI_Cancel(MPI_Request *request);
FABMPI_PUBLIC int PMPI_Cancel(MPI_Request *request);
FABMPI_PUBLIC int MPI_Test_cancelled(const MPI_Status *status, int *flag);
FABMPI_PUBLIC int PMPI_Test_cancelled(const MPI_Status *status, int *flag);
FABMPI_PUBLIC int MPI_Status_set_cancelled(MPI_Status *status, int flag);
FABMPI_PUBLIC int PMPI_Status_set_cancelled(MPI_Status *status, int flag);
FABMPI_PUBLIC int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request);
/* MPI-4 partitioned communication (runtime/binding/partitioned.cpp) */
FABMPI_PUBLIC int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Pready(int partition, MPI_Request request);
FABMPI_PUBLIC int PMPI_Pready(int partition, MPI_Request request);
FABMPI_PUBLIC int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
FABMPI_PUBLIC int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request);
FABMPI_PUBLIC int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
FABMPI_PUBLIC int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request);
FABMPI_PUBLIC int MPI_Parrived(MPI_Request request, int partition, int *flag);
FABMPI_PUBLIC int PMPI_Parrived(MPI_Request request, int partition, int *flag);
FABMPI_PUBLIC int MPI_Start(MPI_Request *request);
FABMPI_PUBLIC int PMPI_Start(MPI_Request *request);
FABMPI_PUBLIC int MPI_Startall(int count, MPI_Request array_of_requests[]);
FABMPI_PUBLIC int PMPI_Startall(int count, MPI_Request array_of_requests[]);

/* ---- datatypes (runtime/binding/datatype.cpp) */
FABMPI_PUBLIC int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                  MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                          MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                           MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_indexed(int count, const int array_of_blocklengths[],
                                   const int array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                    const int array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                           const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                           MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                            const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                            MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_indexed_block(int count, int blocklength,
                                                const int array_of_displacements[], MPI_Datatype oldtype,
                                                MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_indexed_block(int count, int blocklength,
                                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                                 MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_hindexed_block(int count, int blocklength,
                                                 const MPI_Aint array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                                  const MPI_Aint array_of_displacements[],
                                                  MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                          const MPI_Aint array_of_displacements[],
                                          const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                          MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                           MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                         MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                          const int array_of_distribs[], const int array_of_dargs[],
                                          const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                          MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                           const int array_of_subsizes[], const int array_of_starts[],
                                           int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                            const int array_of_subsizes[], const int array_of_starts[],
                                            int order, MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_commit(MPI_Datatype *datatype);
FABMPI_PUBLIC int PMPI_Type_commit(MPI_Datatype *datatype);
FABMPI_PUBLIC int MPI_Type_free(MPI_Datatype *datatype);
FABMPI_PUBLIC int PMPI_Type_free(MPI_Datatype *datatype);
FABMPI_PUBLIC int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
FABMPI_PUBLIC int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent);
FABMPI_PUBLIC int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
FABMPI_PUBLIC int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent);
FABMPI_PUBLIC int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
FABMPI_PUBLIC int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent);
FABMPI_PUBLIC int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                             MPI_Count *true_extent);
FABMPI_PUBLIC int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                              MPI_Count *true_extent);
FABMPI_PUBLIC int MPI_Type_size(MPI_Datatype datatype, int *size);
FABMPI_PUBLIC int PMPI_Type_size(MPI_Datatype datatype, int *size);
FABMPI_PUBLIC int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
FABMPI_PUBLIC int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype);
FABMPI_PUBLIC int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
FABMPI_PUBLIC int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size);
FABMPI_PUBLIC int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                        int *num_datatypes, int *combiner);
FABMPI_PUBLIC int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                         int *num_datatypes, int *combiner);
FABMPI_PUBLIC int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                        int max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
FABMPI_PUBLIC int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                         int max_datatypes, int array_of_integers[],
                                         MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]);
FABMPI_PUBLIC int MPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
FABMPI_PUBLIC int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen);
FABMPI_PUBLIC int MPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
FABMPI_PUBLIC int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name);
/* Datatype attributes (MPI-3.1 6.7.4); copied by MPI_Type_dup, deleted by MPI_Type_free. */
typedef int (MPI_Type_copy_attr_function)(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                            void *extra_state);
#define MPI_TYPE_NULL_COPY_FN   ((MPI_Type_copy_attr_function *)0)
#define MPI_TYPE_NULL_DELETE_FN ((MPI_Type_delete_attr_function *)0)
#define MPI_TYPE_DUP_FN         ((MPI_Type_copy_attr_function *)MPIR_Dup_fn)
FABMPI_PUBLIC int MPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state);
FABMPI_PUBLIC int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn, MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state);
FABMPI_PUBLIC int MPI_Type_free_keyval(int *type_keyval);
FABMPI_PUBLIC int PMPI_Type_free_keyval(int *type_keyval);
FABMPI_PUBLIC int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
FABMPI_PUBLIC int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val);
FABMPI_PUBLIC int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
FABMPI_PUBLIC int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval);
FABMPI_PUBLIC int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                           int *position, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                            int *position, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size);
FABMPI_PUBLIC int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size);
FABMPI_PUBLIC int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                                    void *outbuf, MPI_Aint outsize, MPI_Aint *position);
FABMPI_PUBLIC int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                                     void *outbuf, MPI_Aint outsize, MPI_Aint *position);
FABMPI_PUBLIC int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                      void *outbuf, int outcount, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                       void *outbuf, int outcount, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                             MPI_Datatype datatype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                              MPI_Datatype datatype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
FABMPI_PUBLIC int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size);
FABMPI_PUBLIC int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
FABMPI_PUBLIC int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count);
FABMPI_PUBLIC int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
FABMPI_PUBLIC int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count);
FABMPI_PUBLIC int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
FABMPI_PUBLIC int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count);
FABMPI_PUBLIC int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
FABMPI_PUBLIC int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count);
FABMPI_PUBLIC int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
FABMPI_PUBLIC int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count);
FABMPI_PUBLIC int MPI_Get_address(const void *location, MPI_Aint *address);
FABMPI_PUBLIC int PMPI_Get_address(const void *location, MPI_Aint *address);
FABMPI_PUBLIC MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
FABMPI_PUBLIC MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
FABMPI_PUBLIC MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
FABMPI_PUBLIC MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* ---- profiling control, parent communicator, MPI-1 attribute names (runtime/binding/legacy.cpp) */

/* ---- reduction operations (runtime/binding/op.cpp) */
FABMPI_PUBLIC int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
FABMPI_PUBLIC int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op);
FABMPI_PUBLIC int MPI_Op_free(MPI_Op *op);
FABMPI_PUBLIC int PMPI_Op_free(MPI_Op *op);
FABMPI_PUBLIC int MPI_Op_commutative(MPI_Op op, int *commute);
FABMPI_PUBLIC int PMPI_Op_commutative(MPI_Op op, int *commute);
FABMPI_PUBLIC int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                                   MPI_Op op);
FABMPI_PUBLIC int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                                    MPI_Op op);

/* ---- collectives (coll/binding.cpp) */
FABMPI_PUBLIC int MPI_Barrier(MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Barrier(MPI_Comm comm);
FABMPI_PUBLIC int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
FABMPI_PUBLIC int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);

/* ---- neighbourhood collectives on a process topology (coll/binding.cpp, coll/neighbor.cpp) */
FABMPI_PUBLIC int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
FABMPI_PUBLIC int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);
FABMPI_PUBLIC int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);

/* MPI-4.0 persistent collectives (6.12): inactive requests started with MPI_Start. */
FABMPI_PUBLIC int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int MPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* ---- communicators, groups, attributes (runtime/binding/comm.cpp, comm_manage.cpp, group.cpp).
 * Intercommunicators: MPI_Intercomm_create/merge, the queries, dup/idup/split/create of one, point-to-point
 * and the intercommunicator forms of the collectives (not scan/exscan, which MPI defines on
 * intracommunicators only). Process topologies are in their own section. */
FABMPI_PUBLIC int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request);
FABMPI_PUBLIC int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_free(MPI_Comm *comm);
FABMPI_PUBLIC int PMPI_Comm_free(MPI_Comm *comm);
FABMPI_PUBLIC int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
FABMPI_PUBLIC int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result);
FABMPI_PUBLIC int MPI_Comm_group(MPI_Comm comm, MPI_Group *group);
FABMPI_PUBLIC int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group);
FABMPI_PUBLIC int MPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
FABMPI_PUBLIC int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name);
FABMPI_PUBLIC int MPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
FABMPI_PUBLIC int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen);
FABMPI_PUBLIC int MPI_Comm_test_inter(MPI_Comm comm, int *flag);
FABMPI_PUBLIC int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
FABMPI_PUBLIC int MPI_Comm_remote_size(MPI_Comm comm, int *size);
FABMPI_PUBLIC int PMPI_Comm_remote_size(MPI_Comm comm, int *size);
FABMPI_PUBLIC int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
FABMPI_PUBLIC int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group);
FABMPI_PUBLIC int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);
FABMPI_PUBLIC int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm);
FABMPI_PUBLIC int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
FABMPI_PUBLIC int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm);
FABMPI_PUBLIC int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
FABMPI_PUBLIC int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info);
FABMPI_PUBLIC int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
FABMPI_PUBLIC int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used);
FABMPI_PUBLIC int MPI_Topo_test(MPI_Comm comm, int *status);
FABMPI_PUBLIC int PMPI_Topo_test(MPI_Comm comm, int *status);
FABMPI_PUBLIC int MPI_Group_size(MPI_Group group, int *size);
FABMPI_PUBLIC int PMPI_Group_size(MPI_Group group, int *size);
FABMPI_PUBLIC int MPI_Group_rank(MPI_Group group, int *rank);
FABMPI_PUBLIC int PMPI_Group_rank(MPI_Group group, int *rank);
FABMPI_PUBLIC int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
FABMPI_PUBLIC int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]);
FABMPI_PUBLIC int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
FABMPI_PUBLIC int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result);
FABMPI_PUBLIC int MPI_Group_free(MPI_Group *group);
FABMPI_PUBLIC int PMPI_Group_free(MPI_Group *group);

/* ---- process topologies (runtime/binding/topology.cpp). No reordering; no neighbourhood collectives. */
extern FABMPI_PUBLIC int * const MPI_UNWEIGHTED;
extern FABMPI_PUBLIC int * const MPI_WEIGHTS_EMPTY;
FABMPI_PUBLIC int MPI_Dims_create(int nnodes, int ndims, int dims[]);
FABMPI_PUBLIC int PMPI_Dims_create(int nnodes, int ndims, int dims[]);
FABMPI_PUBLIC int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart);
FABMPI_PUBLIC int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart);
FABMPI_PUBLIC int MPI_Cartdim_get(MPI_Comm comm, int *ndims);
FABMPI_PUBLIC int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);
FABMPI_PUBLIC int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
FABMPI_PUBLIC int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
FABMPI_PUBLIC int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
FABMPI_PUBLIC int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank);
FABMPI_PUBLIC int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
FABMPI_PUBLIC int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]);
FABMPI_PUBLIC int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
FABMPI_PUBLIC int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
FABMPI_PUBLIC int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
FABMPI_PUBLIC int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
FABMPI_PUBLIC int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph);
FABMPI_PUBLIC int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph);
FABMPI_PUBLIC int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
FABMPI_PUBLIC int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges);
FABMPI_PUBLIC int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
FABMPI_PUBLIC int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
FABMPI_PUBLIC int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
FABMPI_PUBLIC int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors);
FABMPI_PUBLIC int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
FABMPI_PUBLIC int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]);
FABMPI_PUBLIC int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
FABMPI_PUBLIC int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
FABMPI_PUBLIC int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
FABMPI_PUBLIC int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
FABMPI_PUBLIC int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
FABMPI_PUBLIC int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
FABMPI_PUBLIC int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
FABMPI_PUBLIC int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted);
FABMPI_PUBLIC int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]);
FABMPI_PUBLIC int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]);

/* ---- memory (runtime/binding/memory.cpp) */
FABMPI_PUBLIC int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
FABMPI_PUBLIC int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
FABMPI_PUBLIC int MPI_Free_mem(void *base);
FABMPI_PUBLIC int PMPI_Free_mem(void *base);

/* ---- MPI-3.1 address arithmetic (defined in runtime/binding/datatype.cpp) */
FABMPI_PUBLIC MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
FABMPI_PUBLIC MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
FABMPI_PUBLIC MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);
FABMPI_PUBLIC MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

/* ---- profiling control, parent communicator, MPI-1 attribute names (runtime/binding/legacy.cpp) */
typedef int (MPI_Copy_function)(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                                void *attribute_val_out, int *flag);
typedef int (MPI_Delete_function)(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
#define MPI_NULL_COPY_FN   ((MPI_Copy_function *)0)
#define MPI_NULL_DELETE_FN ((MPI_Delete_function *)0)
#define MPI_DUP_FN         MPIR_Dup_fn
FABMPI_PUBLIC int MPI_Pcontrol(const int level, ...);
FABMPI_PUBLIC int PMPI_Pcontrol(const int level, ...);
/* ---- MPI-IO (MPI-3.1 chapter 13; io/file.cpp): POSIX files, the "native" representation. */
typedef struct ADIOI_FileD *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)
FABMPI_PUBLIC MPI_Fint MPI_File_c2f(MPI_File file);
FABMPI_PUBLIC MPI_Fint PMPI_File_c2f(MPI_File file);
FABMPI_PUBLIC MPI_File MPI_File_f2c(MPI_Fint file);
FABMPI_PUBLIC MPI_File PMPI_File_f2c(MPI_Fint file);
#define MPI_MODE_CREATE            1
#define MPI_MODE_RDONLY            2
#define MPI_MODE_WRONLY            4
#define MPI_MODE_RDWR              8
#define MPI_MODE_DELETE_ON_CLOSE  16
#define MPI_MODE_UNIQUE_OPEN      32
#define MPI_MODE_EXCL             64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256
#define MPI_SEEK_SET             600
#define MPI_SEEK_CUR             602
#define MPI_SEEK_END             604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING   128
typedef void (MPI_File_errhandler_function)(MPI_File *, int *, ...);
FABMPI_PUBLIC int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
FABMPI_PUBLIC int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
FABMPI_PUBLIC int MPI_File_close(MPI_File *fh);
FABMPI_PUBLIC int PMPI_File_close(MPI_File *fh);
FABMPI_PUBLIC int MPI_File_delete(const char *filename, MPI_Info info);
FABMPI_PUBLIC int PMPI_File_delete(const char *filename, MPI_Info info);
FABMPI_PUBLIC int MPI_File_set_size(MPI_File fh, MPI_Offset size);
FABMPI_PUBLIC int PMPI_File_set_size(MPI_File fh, MPI_Offset size);
FABMPI_PUBLIC int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
FABMPI_PUBLIC int PMPI_File_preallocate(MPI_File fh, MPI_Offset size);
FABMPI_PUBLIC int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
FABMPI_PUBLIC int PMPI_File_get_size(MPI_File fh, MPI_Offset *size);
FABMPI_PUBLIC int MPI_File_get_group(MPI_File fh, MPI_Group *group);
FABMPI_PUBLIC int PMPI_File_get_group(MPI_File fh, MPI_Group *group);
FABMPI_PUBLIC int MPI_File_get_amode(MPI_File fh, int *amode);
FABMPI_PUBLIC int PMPI_File_get_amode(MPI_File fh, int *amode);
FABMPI_PUBLIC int MPI_File_set_info(MPI_File fh, MPI_Info info);
FABMPI_PUBLIC int PMPI_File_set_info(MPI_File fh, MPI_Info info);
FABMPI_PUBLIC int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
FABMPI_PUBLIC int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used);
FABMPI_PUBLIC int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info);
FABMPI_PUBLIC int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info);
FABMPI_PUBLIC int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep);
FABMPI_PUBLIC int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep);
FABMPI_PUBLIC int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
FABMPI_PUBLIC int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
FABMPI_PUBLIC int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
FABMPI_PUBLIC int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset);
FABMPI_PUBLIC int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
FABMPI_PUBLIC int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
FABMPI_PUBLIC int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
FABMPI_PUBLIC int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
FABMPI_PUBLIC int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
FABMPI_PUBLIC int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
FABMPI_PUBLIC int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
FABMPI_PUBLIC int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype);
FABMPI_PUBLIC int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
FABMPI_PUBLIC int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
FABMPI_PUBLIC int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
FABMPI_PUBLIC int MPI_File_set_atomicity(MPI_File fh, int flag);
FABMPI_PUBLIC int PMPI_File_set_atomicity(MPI_File fh, int flag);
FABMPI_PUBLIC int MPI_File_get_atomicity(MPI_File fh, int *flag);
FABMPI_PUBLIC int PMPI_File_get_atomicity(MPI_File fh, int *flag);
FABMPI_PUBLIC int MPI_File_sync(MPI_File fh);
FABMPI_PUBLIC int PMPI_File_sync(MPI_File fh);
FABMPI_PUBLIC int MPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_File_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
FABMPI_PUBLIC int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler);
FABMPI_PUBLIC int MPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_File_call_errhandler(MPI_File fh, int errorcode);
FABMPI_PUBLIC int PMPI_File_call_errhandler(MPI_File fh, int errorcode);

/* MPI-4.0 sessions (11.3): process sets "mpi://WORLD" and "mpi://SELF"; communicators from groups of
 * this job's processes. A session may be initialized without MPI_Init. */
#define MPI_SESSION_NULL ((MPI_Session)0x38000000)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
typedef void (MPI_Session_errhandler_function)(MPI_Session *, int *, ...);
FABMPI_PUBLIC int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
FABMPI_PUBLIC int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
FABMPI_PUBLIC int MPI_Session_finalize(MPI_Session *session);
FABMPI_PUBLIC int PMPI_Session_finalize(MPI_Session *session);
FABMPI_PUBLIC int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
FABMPI_PUBLIC int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
FABMPI_PUBLIC int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
FABMPI_PUBLIC int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
FABMPI_PUBLIC int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name);
FABMPI_PUBLIC int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name);
FABMPI_PUBLIC int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
FABMPI_PUBLIC int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
FABMPI_PUBLIC int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup);
FABMPI_PUBLIC int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup);
FABMPI_PUBLIC int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm);
FABMPI_PUBLIC int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm);
FABMPI_PUBLIC int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
FABMPI_PUBLIC int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
FABMPI_PUBLIC int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Session_call_errhandler(MPI_Session session, int errorcode);
FABMPI_PUBLIC int PMPI_Session_call_errhandler(MPI_Session session, int errorcode);

/* Dynamic processes (MPI-3.1 10.3) under fabmpi's mpirun: the new processes run on mpirun's host. */
FABMPI_PUBLIC int MPI_Comm_get_parent(MPI_Comm *parent);
FABMPI_PUBLIC int PMPI_Comm_get_parent(MPI_Comm *parent);
FABMPI_PUBLIC int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
FABMPI_PUBLIC int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
FABMPI_PUBLIC int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
FABMPI_PUBLIC int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
FABMPI_PUBLIC int MPI_Comm_disconnect(MPI_Comm *comm);
FABMPI_PUBLIC int PMPI_Comm_disconnect(MPI_Comm *comm);
#define MPI_MAX_PORT_NAME 256
FABMPI_PUBLIC int MPI_Open_port(MPI_Info info, char *port_name);
FABMPI_PUBLIC int PMPI_Open_port(MPI_Info info, char *port_name);
FABMPI_PUBLIC int MPI_Close_port(const char *port_name);
FABMPI_PUBLIC int PMPI_Close_port(const char *port_name);
FABMPI_PUBLIC int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm);
FABMPI_PUBLIC int MPI_Comm_join(int fd, MPI_Comm *intercomm);
FABMPI_PUBLIC int PMPI_Comm_join(int fd, MPI_Comm *intercomm);
FABMPI_PUBLIC int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
FABMPI_PUBLIC int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
FABMPI_PUBLIC int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
FABMPI_PUBLIC int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
FABMPI_PUBLIC int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
FABMPI_PUBLIC int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);
FABMPI_PUBLIC int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
FABMPI_PUBLIC int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val);
FABMPI_PUBLIC int MPI_Attr_delete(MPI_Comm comm, int keyval);
FABMPI_PUBLIC int PMPI_Attr_delete(MPI_Comm comm, int keyval);
FABMPI_PUBLIC int MPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
FABMPI_PUBLIC int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state);
FABMPI_PUBLIC int MPI_Keyval_free(int *keyval);
FABMPI_PUBLIC int PMPI_Keyval_free(int *keyval);
/* MPI-1 functions removed in MPI-3.0 and kept, as MPICH keeps them, for the codes that still call them:
 * each is its MPI-2 replacement under the old name (runtime/binding/legacy.cpp). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;
FABMPI_PUBLIC int MPI_Address(void *location, MPI_Aint *address);
FABMPI_PUBLIC int PMPI_Address(void *location, MPI_Aint *address);
FABMPI_PUBLIC int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
FABMPI_PUBLIC int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent);
FABMPI_PUBLIC int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
FABMPI_PUBLIC int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement);
FABMPI_PUBLIC int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
FABMPI_PUBLIC int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement);
FABMPI_PUBLIC int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_hindexed(int count, const int array_of_blocklengths[],
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_hindexed(int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Type_struct(int count, const int array_of_blocklengths[],
                                  const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                  MPI_Datatype *newtype);
FABMPI_PUBLIC int PMPI_Type_struct(int count, const int array_of_blocklengths[],
                                   const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                   MPI_Datatype *newtype);
FABMPI_PUBLIC int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
FABMPI_PUBLIC int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
FABMPI_PUBLIC int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);

/* ---- one-sided communication (rma/window.cpp, runtime/binding/rma.cpp): windows made by MPI_Win_create
 * MPI_Win_allocate and MPI_Win_allocate_shared; fence, post/start/complete/wait and passive-target (lock)
 * synchronization; put, get, the accumulates, the atomics and their request-based forms; dynamic windows
 * (MPI_Win_create_dynamic, attach, detach); window attributes (predefined and user keyvals; windows are never
 * copied, so copy callbacks never run). */
#define MPI_WIN_BASE          0x66000001
#define MPI_WIN_SIZE          0x66000003
#define MPI_WIN_DISP_UNIT     0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL         0x66000009
enum { MPI_WIN_FLAVOR_CREATE = 1, MPI_WIN_FLAVOR_ALLOCATE = 2, MPI_WIN_FLAVOR_DYNAMIC = 3, MPI_WIN_FLAVOR_SHARED = 4 };
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED = 2 };
#define MPI_LOCK_EXCLUSIVE  234
#define MPI_LOCK_SHARED     235
#define MPI_MODE_NOCHECK      1024
#define MPI_MODE_NOSTORE      2048
#define MPI_MODE_NOPUT        4096
#define MPI_MODE_NOPRECEDE    8192
#define MPI_MODE_NOSUCCEED   16384
FABMPI_PUBLIC int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
FABMPI_PUBLIC int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win);
FABMPI_PUBLIC int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
FABMPI_PUBLIC int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
FABMPI_PUBLIC int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
FABMPI_PUBLIC int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win);
FABMPI_PUBLIC int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
FABMPI_PUBLIC int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
typedef int (MPI_Win_copy_attr_function)(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                                         void *attribute_val_out, int *flag);
typedef int (MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
#define MPI_WIN_NULL_COPY_FN   ((MPI_Win_copy_attr_function *)0)
#define MPI_WIN_NULL_DELETE_FN ((MPI_Win_delete_attr_function *)0)
#define MPI_WIN_DUP_FN         ((MPI_Win_copy_attr_function *)MPIR_Dup_fn)
FABMPI_PUBLIC int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state);
FABMPI_PUBLIC int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn, MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state);
FABMPI_PUBLIC int MPI_Win_free_keyval(int *win_keyval);
FABMPI_PUBLIC int PMPI_Win_free_keyval(int *win_keyval);
FABMPI_PUBLIC int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
FABMPI_PUBLIC int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val);
FABMPI_PUBLIC int MPI_Win_delete_attr(MPI_Win win, int win_keyval);
FABMPI_PUBLIC int PMPI_Win_delete_attr(MPI_Win win, int win_keyval);
FABMPI_PUBLIC int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
FABMPI_PUBLIC int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win);
FABMPI_PUBLIC int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
FABMPI_PUBLIC int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size);
FABMPI_PUBLIC int MPI_Win_detach(MPI_Win win, const void *base);
FABMPI_PUBLIC int PMPI_Win_detach(MPI_Win win, const void *base);
FABMPI_PUBLIC int MPI_Win_free(MPI_Win *win);
FABMPI_PUBLIC int PMPI_Win_free(MPI_Win *win);
FABMPI_PUBLIC int MPI_Win_fence(int assert, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_fence(int assert, MPI_Win win);
FABMPI_PUBLIC int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
FABMPI_PUBLIC int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
FABMPI_PUBLIC int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
FABMPI_PUBLIC int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win);
FABMPI_PUBLIC int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win);
FABMPI_PUBLIC int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
FABMPI_PUBLIC int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win);
FABMPI_PUBLIC int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request);
FABMPI_PUBLIC int MPI_Win_post(MPI_Group group, int assert, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_start(MPI_Group group, int assert, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_complete(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_complete(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_wait(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_wait(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_test(MPI_Win win, int *flag);
FABMPI_PUBLIC int PMPI_Win_test(MPI_Win win, int *flag);
FABMPI_PUBLIC int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_unlock(int rank, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_unlock(int rank, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_lock_all(int assert, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_lock_all(int assert, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_unlock_all(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_unlock_all(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_flush(int rank, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_flush(int rank, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_flush_all(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_flush_all(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_flush_local(int rank, MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_flush_local(int rank, MPI_Win win);
FABMPI_PUBLIC int MPI_Win_flush_local_all(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_flush_local_all(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_sync(MPI_Win win);
FABMPI_PUBLIC int PMPI_Win_sync(MPI_Win win);
FABMPI_PUBLIC int MPI_Win_get_group(MPI_Win win, MPI_Group *group);
FABMPI_PUBLIC int PMPI_Win_get_group(MPI_Win win, MPI_Group *group);
FABMPI_PUBLIC int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag);
FABMPI_PUBLIC int MPI_Win_set_info(MPI_Win win, MPI_Info info);
FABMPI_PUBLIC int PMPI_Win_set_info(MPI_Win win, MPI_Info info);
FABMPI_PUBLIC int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
FABMPI_PUBLIC int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used);
FABMPI_PUBLIC int MPI_Win_set_name(MPI_Win win, const char *win_name);
FABMPI_PUBLIC int PMPI_Win_set_name(MPI_Win win, const char *win_name);
FABMPI_PUBLIC int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
FABMPI_PUBLIC int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen);
FABMPI_PUBLIC int MPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
FABMPI_PUBLIC int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler);
FABMPI_PUBLIC int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler);
FABMPI_PUBLIC int MPI_Win_call_errhandler(MPI_Win win, int errorcode);
FABMPI_PUBLIC int PMPI_Win_call_errhandler(MPI_Win win, int errorcode);

/* ---- generalized requests (runtime/binding/grequest.cpp) */
typedef int (MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int (MPI_Grequest_free_function)(void *extra_state);
typedef int (MPI_Grequest_cancel_function)(void *extra_state, int complete);
FABMPI_PUBLIC int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
FABMPI_PUBLIC int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
FABMPI_PUBLIC int MPI_Grequest_complete(MPI_Request request);
FABMPI_PUBLIC int PMPI_Grequest_complete(MPI_Request request);

/* ---- the MPI tool information interface, MPI_T (MPI-3.1 14.3; runtime/tool_interface.cpp,
 * runtime/binding/mpi_t.cpp): control variables are the FABMPI_* tunables, performance variables the
 * point-to-point engine's queues and message counts. No MPI-4 events. Handles are pointers to
 * incomplete structs, as in MPICH. */
struct MPIR_T_enum_s;
struct MPIR_T_cvar_handle_s;
struct MPIR_T_pvar_handle_s;
struct MPIR_T_pvar_session_s;
typedef struct MPIR_T_enum_s *MPI_T_enum;
typedef struct MPIR_T_cvar_handle_s *MPI_T_cvar_handle;
typedef struct MPIR_T_pvar_handle_s *MPI_T_pvar_handle;
typedef struct MPIR_T_pvar_session_s *MPI_T_pvar_session;

extern FABMPI_PUBLIC struct MPIR_T_pvar_handle_s * const MPI_T_PVAR_ALL_HANDLES;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)NULL)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)NULL)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)NULL)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)NULL)

/* The standard requires increasing values in this order. */
typedef enum MPIR_T_verbosity_t {
  MPI_T_VERBOSITY_INVALID = 0,
  MPI_T_VERBOSITY_USER_BASIC = 221,
  MPI_T_VERBOSITY_USER_DETAIL,
  MPI_T_VERBOSITY_USER_ALL,
  MPI_T_VERBOSITY_TUNER_BASIC,
  MPI_T_VERBOSITY_TUNER_DETAIL,
  MPI_T_VERBOSITY_TUNER_ALL,
  MPI_T_VERBOSITY_MPIDEV_BASIC,
  MPI_T_VERBOSITY_MPIDEV_DETAIL,
  MPI_T_VERBOSITY_MPIDEV_ALL
} MPIR_T_verbosity_t;

typedef enum MPIR_T_bind_t {
  MPI_T_BIND_INVALID = 0,
  MPI_T_BIND_NO_OBJECT = 9700,
  MPI_T_BIND_MPI_COMM,
  MPI_T_BIND_MPI_DATATYPE,
  MPI_T_BIND_MPI_ERRHANDLER,
  MPI_T_BIND_MPI_FILE,
  MPI_T_BIND_MPI_GROUP,
  MPI_T_BIND_MPI_OP,
  MPI_T_BIND_MPI_REQUEST,
  MPI_T_BIND_MPI_WIN,
  MPI_T_BIND_MPI_MESSAGE,
  MPI_T_BIND_MPI_INFO
} MPIR_T_bind_t;

typedef enum MPIR_T_scope_t {
  MPI_T_SCOPE_INVALID = 0,
  MPI_T_SCOPE_CONSTANT = 60438,
  MPI_T_SCOPE_READONLY,
  MPI_T_SCOPE_LOCAL,
  MPI_T_SCOPE_GROUP,
  MPI_T_SCOPE_GROUP_EQ,
  MPI_T_SCOPE_ALL,
  MPI_T_SCOPE_ALL_EQ
} MPIR_T_scope_t;

typedef enum MPIR_T_pvar_class_t {
  MPI_T_PVAR_CLASS_INVALID = 0,
  MPIR_T_PVAR_CLASS_FIRST = 240,
  MPI_T_PVAR_CLASS_STATE = MPIR_T_PVAR_CLASS_FIRST,
  MPI_T_PVAR_CLASS_LEVEL,
  MPI_T_PVAR_CLASS_SIZE,
  MPI_T_PVAR_CLASS_PERCENTAGE,
  MPI_T_PVAR_CLASS_HIGHWATERMARK,
  MPI_T_PVAR_CLASS_LOWWATERMARK,
  MPI_T_PVAR_CLASS_COUNTER,
  MPI_T_PVAR_CLASS_AGGREGATE,
  MPI_T_PVAR_CLASS_TIMER,
  MPI_T_PVAR_CLASS_GENERIC,
  MPIR_T_PVAR_CLASS_LAST,
  MPIR_T_PVAR_CLASS_NUMBER = MPIR_T_PVAR_CLASS_LAST - MPIR_T_PVAR_CLASS_FIRST
} MPIR_T_pvar_class_t;

FABMPI_PUBLIC int MPI_T_init_thread(int required, int *provided);
FABMPI_PUBLIC int PMPI_T_init_thread(int required, int *provided);
FABMPI_PUBLIC int MPI_T_finalize(void);
FABMPI_PUBLIC int PMPI_T_finalize(void);
FABMPI_PUBLIC int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
FABMPI_PUBLIC int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
FABMPI_PUBLIC int MPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len);
FABMPI_PUBLIC int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len);
FABMPI_PUBLIC int MPI_T_cvar_get_num(int *num_cvar);
FABMPI_PUBLIC int PMPI_T_cvar_get_num(int *num_cvar);
FABMPI_PUBLIC int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                                      MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope);
FABMPI_PUBLIC int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                                       MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope);
FABMPI_PUBLIC int MPI_T_cvar_get_index(const char *name, int *cvar_index);
FABMPI_PUBLIC int PMPI_T_cvar_get_index(const char *name, int *cvar_index);
FABMPI_PUBLIC int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count);
FABMPI_PUBLIC int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count);
FABMPI_PUBLIC int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
FABMPI_PUBLIC int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle);
FABMPI_PUBLIC int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
FABMPI_PUBLIC int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf);
FABMPI_PUBLIC int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
FABMPI_PUBLIC int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf);
FABMPI_PUBLIC int MPI_T_pvar_get_num(int *num_pvar);
FABMPI_PUBLIC int PMPI_T_pvar_get_num(int *num_pvar);
FABMPI_PUBLIC int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                      MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                      int *bind, int *readonly, int *continuous, int *atomic);
FABMPI_PUBLIC int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                       MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                                       int *bind, int *readonly, int *continuous, int *atomic);
FABMPI_PUBLIC int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
FABMPI_PUBLIC int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index);
FABMPI_PUBLIC int MPI_T_pvar_session_create(MPI_T_pvar_session *session);
FABMPI_PUBLIC int PMPI_T_pvar_session_create(MPI_T_pvar_session *session);
FABMPI_PUBLIC int MPI_T_pvar_session_free(MPI_T_pvar_session *session);
FABMPI_PUBLIC int PMPI_T_pvar_session_free(MPI_T_pvar_session *session);
FABMPI_PUBLIC int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                          MPI_T_pvar_handle *handle, int *count);
FABMPI_PUBLIC int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                           MPI_T_pvar_handle *handle, int *count);
FABMPI_PUBLIC int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
FABMPI_PUBLIC int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle);
FABMPI_PUBLIC int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
FABMPI_PUBLIC int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
FABMPI_PUBLIC int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
FABMPI_PUBLIC int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf);
FABMPI_PUBLIC int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle);
FABMPI_PUBLIC int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
FABMPI_PUBLIC int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf);
FABMPI_PUBLIC int MPI_T_category_get_num(int *num_cat);
FABMPI_PUBLIC int PMPI_T_category_get_num(int *num_cat);
FABMPI_PUBLIC int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                          int *num_cvars, int *num_pvars, int *num_categories);
FABMPI_PUBLIC int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                           int *num_cvars, int *num_pvars, int *num_categories);
FABMPI_PUBLIC int MPI_T_category_get_index(const char *name, int *cat_index);
FABMPI_PUBLIC int PMPI_T_category_get_index(const char *name, int *cat_index);
FABMPI_PUBLIC int MPI_T_category_get_cvars(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int MPI_T_category_get_pvars(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int MPI_T_category_get_categories(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int PMPI_T_category_get_categories(int cat_index, int len, int indices[]);
FABMPI_PUBLIC int MPI_T_category_changed(int *update_number);
FABMPI_PUBLIC int PMPI_T_category_changed(int *update_number);

#if defined(__cplusplus)
}
#endif

#endif /* FABMPI_MPI_H_INCLUDED */
