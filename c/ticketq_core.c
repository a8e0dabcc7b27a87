// ticketq's C core: ticketq.TicketQueue (construction, push, pop, peek, remove, len, bool,
// full, clear, repr, the digest, aging, renumbering, the attributes) in C, as CPython's
// _heapq is heapq.py in C. The Python modules stay the reference (ticketq.core, the bytecode
// class) and the fallback (ticketq.viper); lib/ticketq/ccore.py hands this module ticketq.core's
// checker, error helper and exceptions (_setup), then checks its class at import.
// The class is a native type, not a Python subclass: a method call on an instance of a Python
// class with a native base costs three times the whole C push+pop on the unix port (the
// lookup walks the instance, the class and its bases), which would leave it no faster than
// viper. So it is no instance of ticketq.core.QueueBase (docs/c-core.md).
//
// One file, two builds (docs/c-core.md):
//   - a native .mpy (MicroPython's py/dynruntime.mk and tools/mpy_ld.py): mpy_init below;
//     tools/ticketq_tools/ccore.py builds it for x86, armv6m, armv7m and rv32imc;
//   - a user C module (USER_C_MODULES, c/micropython.mk / c/micropython.cmake): the
//     registration at the bottom, compiled when MICROPY_ENABLE_DYNRUNTIME is not defined.
// The module is `_ticketq`: the type TicketQueue, _setup and ABI (the contract version
// ccore.py checks).
//
// Slots 0 .. n-1 of two array('i') (ticketq.core's layout, read by ticketq.audit):
//   k[i]  the key,  (1 - class) * 2**29 + s  where s is the internal sequence, 0 <= s < 2**29
//   d[i]  the job id, or ~id (negative) once aging promoted the ticket
// The smaller key pops first; keys are unique because live sequences are.
//
// The invariant, stated once: k[(i - 1) >> 1] < k[i] for every slot 0 < i < n.
// Sift-up and sift-down move a hole instead of swapping (one write per level).
//
// The scalar state lives in a third array('i'), S below (the attribute _s), at
// ticketq.viper's slot numbers; the attributes _n, _nxt, _lim, _nb, digest, last_priority,
// last_seq, aging and _left read and write its words (attr below), capacity, _k, _d, _s and
// trace are the rest. The object keeps pointers to the three arrays' items: MicroPython's
// collector never moves a block, the object holds the arrays, and they are never resized.
//
// No allocation here after construction: push, pop, peek, remove, len and clear touch only
// the arrays. Errors are built by ticketq.core's own functions (passed to _setup): _int for a
// bad argument (same type and message; MemoryError under heap_lock, as the Python path) and
// _err for QueueFull/QueueEmpty (a fresh instance, or the preallocated one under heap_lock):
// the same exception classes as ticketq.core's. Every value is a small int on a 32-bit port.
// C99. All storage is allocated by the constructor (the object and its three arrays), none after.
#include <stdint.h>
#ifdef MICROPY_ENABLE_DYNRUNTIME
#include "py/dynruntime.h"
#else
#include "py/runtime.h"
#endif

#define TQ_ABI (2)              // bump when _setup's arguments or the slots change
#define TQ_IDMAX (0x3FFFFFFF)   // 2**30 - 1: the largest job id and sequence number
#define TQ_SMASK (0x1FFFFFFF)   // the internal sequence bits of a key
#define TQ_CLASS (0x20000000)   // one class step of a key, and the internal sequence limit
#define TQ_DIG0 (0x2A5F0C3)     // the digest of an empty schedule (ticketq.core._DIG0)

// Slots of S (as ticketq.viper's; 11 and 12 hold addresses there, unused here)
enum { N_ = 0, CAP_, NXT_, LIM_, NB_, DIG_, LP_, LS_, AGE_, LEFT_, SLOW_, TQ_SLOTS = 13 };

typedef struct _tq_core_t {
    mp_obj_base_t base;
    int32_t *s, *k, *d;      // items of the three arrays
    mp_obj_t sa, ka, da;     // the arrays: _s, _k, _d
    mp_obj_t trace;          // None, or an object with record(id, class, seq, promoted)
} tq_core_t;

// What _setup gets from ticketq.ccore, once, before the first queue: ticketq.core's _err,
// _int, _FULL, _EMPTY, a maker of array('i', range(n)), and the argument names of _int's
// messages. Kept alive by those modules (they are module globals there) as well as here.
enum { ERR_ = 0, CHK_, FULL_, EMPTY_, MAKE_, JNAME_, PNAME_, CNAME_, FNAME_, ANAME_, TQ_CFG };
#ifdef MICROPY_ENABLE_DYNRUNTIME
mp_obj_t tq_cfg[TQ_CFG]; // not static: see core_locals_table below
#define cfg tq_cfg
#else
// Built in, it is a root pointer: the collector scans MP_STATE_VM, not .bss, and the array
// maker (a lambda of ticketq.ccore's) is referenced from here alone.
MP_REGISTER_ROOT_POINTER(mp_obj_t ticketq_cfg[10]);
#define cfg (MP_STATE_VM(ticketq_cfg))
#endif

// ---- the heap (ticketq.core's functions, one for one)

static void up(int32_t *k, int32_t *d, int32_t i, int32_t key, int32_t v) {
    while (i) {
        int32_t p = (i - 1) >> 1;
        if (k[p] < key) {
            break;
        }
        k[i] = k[p];
        d[i] = d[p];
        i = p;
    }
    k[i] = key;
    d[i] = v;
}

static void down(int32_t *k, int32_t *d, int32_t n, int32_t i, int32_t key, int32_t v) {
    int32_t c = 2 * i + 1;
    while (c < n) {
        if (c + 1 < n && k[c + 1] < k[c]) {
            c += 1;
        }
        if (key < k[c]) {
            break;
        }
        k[i] = k[c];
        d[i] = d[c];
        i = c;
        c = 2 * i + 1;
    }
    k[i] = key;
    d[i] = v;
}

// Remove slot j of n (n - 1 remain): the last ticket fills the hole, sifted either way.
static void delete(int32_t *k, int32_t *d, int32_t n, int32_t j) {
    n -= 1;
    if (j < n) {
        if (j && k[n] < k[(j - 1) >> 1]) {
            up(k, d, j, k[n], d[n]);
        } else {
            down(k, d, n, j, k[n], d[n]);
        }
    }
}

// Slot of the oldest ticket (lowest internal sequence) with job id v, or for v < 0 of the
// oldest ticket below the top class; -1 if none.
static int32_t oldest(const int32_t *k, const int32_t *d, int32_t n, int32_t v) {
    int32_t j = -1;
    int32_t w = TQ_CLASS;
    for (int32_t i = 0; i < n; i++) {
        int32_t x = d[i];
        if (v >= 0 ? (x == v || ~x == v) : k[i] >= -TQ_CLASS) {
            int32_t s = k[i] & TQ_SMASK;
            if (s < w) {
                w = s;
                j = i;
            }
        }
    }
    return j;
}

// Aging: the oldest ticket below the top class moves up one class, marked promoted (~id).
static void promote(int32_t *k, int32_t *d, int32_t n) {
    int32_t j = oldest(k, d, n, -1);
    if (j >= 0) {
        int32_t v = d[j];
        up(k, d, j, k[j] - TQ_CLASS, v < 0 ? v : ~v);
    }
}

// The internal counter ran out: tickets with sequence >= w keep their outside numbers
// (shifted down together), older ones are packed to 0, 1, ... in order; no comparison
// between two tickets changes. Returns the shift applied to the recent ones.
static int32_t renumber(int32_t *k, int32_t n, int32_t w) {
    int32_t c = 0;
    int32_t p = -1;
    for (;;) {
        int32_t x = w;
        int32_t j = -1;
        for (int32_t i = 0; i < n; i++) {
            int32_t s = k[i] & TQ_SMASK;
            if (p < s && s < x) {
                x = s;
                j = i;
            }
        }
        if (j < 0) {
            break;
        }
        k[j] += c - x;
        p = x;
        c += 1;
    }
    w -= c;
    for (int32_t i = 0; i < n; i++) {
        if ((k[i] & TQ_SMASK) >= c) {
            k[i] -= w;
        }
    }
    return w;
}

// ---- the methods

static void raise_err(mp_obj_t e) {
    nlr_raise(mp_call_function_n_kw(cfg[ERR_], 1, 0, &e));
}

// An int argument of lo..hi: a small int in range as it is, anything else through
// ticketq.core._int, which raises the library's error or returns the plain int.
static int32_t arg(mp_obj_t v, int32_t lo, int32_t hi, int name) {
    if (mp_obj_is_small_int(v)) {
        mp_int_t x = MP_OBJ_SMALL_INT_VALUE(v);
        if (x >= lo && x <= hi) {
            return (int32_t)x;
        }
    }
    mp_obj_t a[4] = {v, MP_OBJ_NEW_SMALL_INT(lo), MP_OBJ_NEW_SMALL_INT(hi), cfg[name]};
    return (int32_t)mp_obj_get_int(mp_call_function_n_kw(cfg[CHK_], 4, 0, a));
}

static int32_t *items(mp_obj_t a) {
    mp_buffer_info_t b;
    mp_get_buffer_raise(a, &b, MP_BUFFER_RW);
    return (int32_t *)b.buf;
}

// TicketQueue(capacity, first_seq=0, aging=0): ticketq.core.QueueBase.__init__'s checks in
// its order, all storage allocated here, nothing after.
static mp_obj_t core_make_new(const mp_obj_type_t *type, size_t n_args, size_t n_kw, const mp_obj_t *args) {
    if (cfg[CHK_] == MP_OBJ_NULL) {
        mp_raise_msg(&mp_type_RuntimeError, MP_ERROR_TEXT("_ticketq: _setup not called (import ticketq)"));
    }
    mp_arg_check_num(n_args, n_kw, 0, 3, true);
    mp_obj_t a[3] = {MP_OBJ_NULL, MP_OBJ_NEW_SMALL_INT(0), MP_OBJ_NEW_SMALL_INT(0)};
    for (size_t i = 0; i < n_args; i++) {
        a[i] = args[i];
    }
    for (size_t i = 0; i < n_kw; i++) {
        mp_obj_t key = args[n_args + 2 * i];
        int j = key == MP_OBJ_NEW_QSTR(MP_QSTR_capacity) ? 0
            : key == MP_OBJ_NEW_QSTR(MP_QSTR_first_seq) ? 1
            : key == MP_OBJ_NEW_QSTR(MP_QSTR_aging) ? 2 : -1;
        if (j < 0 || (size_t)j < n_args) {
            mp_raise_TypeError(MP_ERROR_TEXT("unexpected or repeated keyword argument"));
        }
        a[j] = args[n_args + 2 * i + 1];
    }
    if (a[0] == MP_OBJ_NULL) {
        mp_raise_TypeError(MP_ERROR_TEXT("missing capacity"));
    }
    int32_t cap = arg(a[0], 1, 0x1000000, CNAME_);
    int32_t first = arg(a[1], 0, TQ_IDMAX, FNAME_);
    int32_t aging = arg(a[2], 0, TQ_IDMAX, ANAME_);
    mp_obj_t n = MP_OBJ_NEW_SMALL_INT(cap);
    mp_obj_t ka = mp_call_function_n_kw(cfg[MAKE_], 1, 0, &n);
    mp_obj_t da = mp_call_function_n_kw(cfg[MAKE_], 1, 0, &n);
    n = MP_OBJ_NEW_SMALL_INT(TQ_SLOTS);
    mp_obj_t sa = mp_call_function_n_kw(cfg[MAKE_], 1, 0, &n);
    tq_core_t *self = mp_obj_malloc(tq_core_t, type);
    self->sa = sa;
    self->ka = ka;
    self->da = da;
    self->s = items(sa);
    self->k = items(ka);
    self->d = items(da);
    self->trace = mp_const_none;
    int32_t *s = self->s;
    for (int i = 0; i < TQ_SLOTS; i++) {
        s[i] = 0;
    }
    s[CAP_] = cap;
    s[LIM_] = TQ_CLASS; // tests narrow it to wrap the internal counter in a few pushes
    s[NB_] = first - TQ_IDMAX - 1;
    s[AGE_] = aging;
    s[SLOW_] = aging != 0;
    s[LEFT_] = aging;
    s[DIG_] = TQ_DIG0;
    s[LP_] = -1;
    s[LS_] = -1;
    return MP_OBJ_FROM_PTR(self);
}

static mp_obj_t core_push(mp_obj_t self_in, mp_obj_t job_in, mp_obj_t prio_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    int32_t j, p;
    if (mp_obj_is_small_int(job_in) && mp_obj_is_small_int(prio_in)
        && MP_OBJ_SMALL_INT_VALUE(job_in) >= 0 && MP_OBJ_SMALL_INT_VALUE(job_in) <= TQ_IDMAX
        && MP_OBJ_SMALL_INT_VALUE(prio_in) >= 0 && MP_OBJ_SMALL_INT_VALUE(prio_in) <= 3) {
        j = (int32_t)MP_OBJ_SMALL_INT_VALUE(job_in);
        p = (int32_t)MP_OBJ_SMALL_INT_VALUE(prio_in);
    } else {
        // the checks in the Python path's order: the job id first, then the priority
        j = arg(job_in, 0, TQ_IDMAX, JNAME_);
        p = arg(prio_in, 0, 3, PNAME_);
    }
    int32_t *s = self->s;
    int32_t n = s[N_];
    if (n >= s[CAP_]) {
        raise_err(cfg[FULL_]);
    }
    int32_t q = s[NXT_];
    if (q >= s[LIM_]) {
        // keep tickets from the last quarter of the range exact, pack older ones
        int32_t w = renumber(self->k, n, q - (s[LIM_] >> 2));
        q -= w;
        w += s[NB_];
        s[NB_] = w < 0 ? w : w - TQ_IDMAX - 1;
    }
    s[NXT_] = q + 1;
    s[N_] = n + 1;
    up(self->k, self->d, n, (1 - p) * TQ_CLASS + q, j);
    q += s[NB_];
    return MP_OBJ_NEW_SMALL_INT(q >= 0 ? q : q + TQ_IDMAX + 1);
}
static MP_DEFINE_CONST_FUN_OBJ_3(core_push_obj, core_push);

static mp_obj_t core_pop(mp_obj_t self_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    int32_t *s = self->s, *k = self->k, *d = self->d;
    int32_t n = s[N_] - 1;
    if (n < 0) {
        raise_err(cfg[EMPTY_]);
    }
    int32_t key = k[0];
    int32_t i = d[0];
    s[N_] = n;
    if (n) {
        down(k, d, n, 0, k[n], d[n]);
    }
    int32_t c = 1 - (key >> 29);
    int32_t q = (key & TQ_SMASK) + s[NB_];
    if (q < 0) {
        q += TQ_IDMAX + 1;
    }
    s[LP_] = c;
    s[LS_] = q;
    int p = i < 0;
    if (p) {
        i = ~i;
    }
    // Schedule digest: rotate left 5 within 30 bits, fold in the id, rotate again, fold in
    // sequence and class (ticketq.core's TicketQueue.pop).
    uint32_t x = (uint32_t)s[DIG_];
    x = (((x & 0x1FFFFFF) << 5) | (x >> 25)) ^ (uint32_t)i;
    s[DIG_] = (int32_t)((((x & 0x1FFFFFF) << 5) | (x >> 25)) ^ (uint32_t)q ^ ((uint32_t)c << 28));
    if (s[SLOW_]) {
        // a trace is attached or aging is on
        if (self->trace != mp_const_none) {
            mp_obj_t m[6];
            mp_load_method(self->trace, MP_QSTR_record, m);
            m[2] = MP_OBJ_NEW_SMALL_INT(i);
            m[3] = MP_OBJ_NEW_SMALL_INT(c);
            m[4] = MP_OBJ_NEW_SMALL_INT(q);
            m[5] = mp_obj_new_bool(p);
            if (m[1] == MP_OBJ_NULL) {
                mp_call_function_n_kw(m[0], 4, 0, m + 2);
            } else {
                mp_call_function_n_kw(m[0], 5, 0, m + 1);
            }
        }
        if (s[AGE_]) {
            s[LEFT_] -= 1;
            if (s[LEFT_] <= 0) {
                s[LEFT_] = s[AGE_];
                promote(k, d, n);
            }
        }
    }
    return MP_OBJ_NEW_SMALL_INT(i);
}
static MP_DEFINE_CONST_FUN_OBJ_1(core_pop_obj, core_pop);

static mp_obj_t core_peek(mp_obj_t self_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    if (self->s[N_] <= 0) {
        raise_err(cfg[EMPTY_]);
    }
    int32_t i = self->d[0];
    return MP_OBJ_NEW_SMALL_INT(i >= 0 ? i : ~i);
}
static MP_DEFINE_CONST_FUN_OBJ_1(core_peek_obj, core_peek);

static mp_obj_t core_remove(mp_obj_t self_in, mp_obj_t job_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    int32_t v = arg(job_in, 0, TQ_IDMAX, JNAME_);
    int32_t n = self->s[N_];
    int32_t j = oldest(self->k, self->d, n, v);
    if (j < 0) {
        return mp_const_false;
    }
    delete(self->k, self->d, n, j);
    self->s[N_] = n - 1;
    return mp_const_true;
}
static MP_DEFINE_CONST_FUN_OBJ_2(core_remove_obj, core_remove);

static mp_obj_t core_full(mp_obj_t self_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    return mp_obj_new_bool(self->s[N_] >= self->s[CAP_]);
}
static MP_DEFINE_CONST_FUN_OBJ_1(core_full_obj, core_full);

static mp_obj_t core_clear(mp_obj_t self_in) {
    // a new schedule; the sequence goes on (a logical clock never goes back)
    int32_t *s = ((tq_core_t *)MP_OBJ_TO_PTR(self_in))->s;
    s[N_] = 0;
    s[LEFT_] = s[AGE_];
    s[DIG_] = TQ_DIG0;
    s[LP_] = -1;
    s[LS_] = -1;
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(core_clear_obj, core_clear);

static mp_obj_t core_unary_op(mp_unary_op_t op, mp_obj_t self_in) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    switch (op) {
        case MP_UNARY_OP_BOOL:
            return mp_obj_new_bool(self->s[N_] > 0);
        case MP_UNARY_OP_LEN:
            return MP_OBJ_NEW_SMALL_INT(self->s[N_]);
        default:
            return MP_OBJ_NULL;
    }
}

// repr: ticketq.core.QueueBase.__repr__'s text
static void core_print(const mp_print_t *print, mp_obj_t self_in, mp_print_kind_t kind) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    (void)kind;
    int c[4] = {0, 0, 0, 0};
    for (int32_t j = 0; j < self->s[N_]; j++) {
        c[1 - (self->k[j] >> 29)] += 1;
    }
    mp_printf(print, "<TicketQueue %d/%d CRITICAL=%d HIGH=%d NORMAL=%d LOW=%d>",
        (int)self->s[N_], (int)self->s[CAP_], c[3], c[2], c[1], c[0]);
}

// The attributes: the words of _s by name, the arrays, the trace; push and pop answered here
// first (the hot path skips the field names and the locals dict), the other methods found in
// the locals dict (dest[1] = MP_OBJ_SENTINEL: go on looking there). Stored: the int words
// (TypeError for a non-int, as the viper class's array slots), trace (any object); no others.
static int slot_of(qstr attr) {
    if (attr == MP_QSTR__n) {
        return N_;
    } else if (attr == MP_QSTR_digest) {
        return DIG_;
    } else if (attr == MP_QSTR_last_priority) {
        return LP_;
    } else if (attr == MP_QSTR_last_seq) {
        return LS_;
    } else if (attr == MP_QSTR_aging) {
        return AGE_;
    } else if (attr == MP_QSTR__nxt) {
        return NXT_;
    } else if (attr == MP_QSTR__lim) {
        return LIM_;
    } else if (attr == MP_QSTR__nb) {
        return NB_;
    } else if (attr == MP_QSTR__left) {
        return LEFT_;
    } else if (attr == MP_QSTR_capacity) {
        return CAP_;
    }
    return -1;
}

static void core_attr(mp_obj_t self_in, qstr attr, mp_obj_t *dest) {
    tq_core_t *self = MP_OBJ_TO_PTR(self_in);
    if (dest[0] == MP_OBJ_NULL) {
        // load; push and pop first, as a bound method (a method call allocates nothing)
        if (attr == MP_QSTR_push) {
            dest[0] = MP_OBJ_FROM_PTR(&core_push_obj);
            dest[1] = self_in;
        } else if (attr == MP_QSTR_pop) {
            dest[0] = MP_OBJ_FROM_PTR(&core_pop_obj);
            dest[1] = self_in;
        } else if (attr == MP_QSTR_trace) {
            dest[0] = self->trace;
        } else if (attr == MP_QSTR__k) {
            dest[0] = self->ka;
        } else if (attr == MP_QSTR__d) {
            dest[0] = self->da;
        } else if (attr == MP_QSTR__s) {
            dest[0] = self->sa;
        } else {
            int i = slot_of(attr);
            if (i >= 0) {
                dest[0] = MP_OBJ_NEW_SMALL_INT(self->s[i]);
            } else {
                dest[1] = MP_OBJ_SENTINEL; // a method: the locals dict
            }
        }
    } else if (dest[1] != MP_OBJ_NULL) {
        // store
        int32_t *s = self->s;
        if (attr == MP_QSTR_trace) {
            self->trace = dest[1];
        } else {
            int i = slot_of(attr);
            if (i < 0 || i == CAP_) {
                return; // AttributeError
            }
            s[i] = (int32_t)mp_obj_get_int(dest[1]);
        }
        s[SLOW_] = self->trace != mp_const_none || s[AGE_] != 0;
        dest[0] = MP_OBJ_NULL; // done
    }
}

// _setup((err, chk, full, empty, make, "job id", "priority", "capacity", "first_seq", "aging"))
static mp_obj_t tq_setup(mp_obj_t t) {
    size_t n;
    mp_obj_t *items;
    mp_obj_get_array(t, &n, &items);
    if (n != TQ_CFG) {
        mp_raise_ValueError(MP_ERROR_TEXT("_ticketq._setup: wrong arguments"));
    }
    for (size_t i = 0; i < n; i++) {
        cfg[i] = items[i];
    }
    return mp_const_none;
}
static MP_DEFINE_CONST_FUN_OBJ_1(tq_setup_obj, tq_setup);

#ifdef MICROPY_ENABLE_DYNRUNTIME
// ---- the native .mpy: the type is built in RAM at import (as examples/natmod/framebuf)

mp_obj_full_type_t core_type;
mp_map_elem_t core_locals_table[6]; // not static: mpy_ld relocated a static one wrongly (the dict saw an empty table)
static MP_DEFINE_CONST_DICT(core_locals, core_locals_table);

mp_obj_t mpy_init(mp_obj_fun_bc_t *self, size_t n_args, size_t n_kw, mp_obj_t *args) {
    MP_DYNRUNTIME_INIT_ENTRY

    for (int i = 0; i < TQ_CFG; i++) {
        cfg[i] = MP_OBJ_NULL;
    }
    core_type.base.type = (void *)&mp_type_type;
    core_type.flags = MP_TYPE_FLAG_NONE;
    core_type.name = MP_QSTR_TicketQueue;
    MP_OBJ_TYPE_SET_SLOT(&core_type, make_new, core_make_new, 0);
    MP_OBJ_TYPE_SET_SLOT(&core_type, unary_op, core_unary_op, 1);
    MP_OBJ_TYPE_SET_SLOT(&core_type, print, core_print, 2);
    MP_OBJ_TYPE_SET_SLOT(&core_type, attr, core_attr, 3);
    core_locals_table[0] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_push), MP_OBJ_FROM_PTR(&core_push_obj)};
    core_locals_table[1] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_pop), MP_OBJ_FROM_PTR(&core_pop_obj)};
    core_locals_table[2] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_peek), MP_OBJ_FROM_PTR(&core_peek_obj)};
    core_locals_table[3] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_remove), MP_OBJ_FROM_PTR(&core_remove_obj)};
    core_locals_table[4] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_full), MP_OBJ_FROM_PTR(&core_full_obj)};
    core_locals_table[5] = (mp_map_elem_t) {MP_OBJ_NEW_QSTR(MP_QSTR_clear), MP_OBJ_FROM_PTR(&core_clear_obj)};
    MP_OBJ_TYPE_SET_SLOT(&core_type, locals_dict, (void *)&core_locals, 4);

    mp_store_global(MP_QSTR_TicketQueue, MP_OBJ_FROM_PTR(&core_type));
    mp_store_global(MP_QSTR__setup, MP_OBJ_FROM_PTR(&tq_setup_obj));
    mp_store_global(MP_QSTR_ABI, MP_OBJ_NEW_SMALL_INT(TQ_ABI));

    MP_DYNRUNTIME_INIT_EXIT
}

#else
// ---- the user C module (USER_C_MODULES): the same type, in ROM; cfg is a root pointer.
MP_STATIC_ASSERT(TQ_CFG == 10); // the size in MP_REGISTER_ROOT_POINTER above

static const mp_rom_map_elem_t core_locals_table[] = {
    { MP_ROM_QSTR(MP_QSTR_push), MP_ROM_PTR(&core_push_obj) },
    { MP_ROM_QSTR(MP_QSTR_pop), MP_ROM_PTR(&core_pop_obj) },
    { MP_ROM_QSTR(MP_QSTR_peek), MP_ROM_PTR(&core_peek_obj) },
    { MP_ROM_QSTR(MP_QSTR_remove), MP_ROM_PTR(&core_remove_obj) },
    { MP_ROM_QSTR(MP_QSTR_full), MP_ROM_PTR(&core_full_obj) },
    { MP_ROM_QSTR(MP_QSTR_clear), MP_ROM_PTR(&core_clear_obj) },
};
static MP_DEFINE_CONST_DICT(core_locals, core_locals_table);

MP_DEFINE_CONST_OBJ_TYPE(
    core_type,
    MP_QSTR_TicketQueue,
    MP_TYPE_FLAG_NONE,
    make_new, core_make_new,
    unary_op, core_unary_op,
    print, core_print,
    attr, core_attr,
    locals_dict, &core_locals
    );

static const mp_rom_map_elem_t tq_module_globals_table[] = {
    { MP_ROM_QSTR(MP_QSTR___name__), MP_ROM_QSTR(MP_QSTR__ticketq) },
    { MP_ROM_QSTR(MP_QSTR_TicketQueue), MP_ROM_PTR(&core_type) },
    { MP_ROM_QSTR(MP_QSTR__setup), MP_ROM_PTR(&tq_setup_obj) },
    { MP_ROM_QSTR(MP_QSTR_ABI), MP_ROM_INT(TQ_ABI) },
};
static MP_DEFINE_CONST_DICT(tq_module_globals, tq_module_globals_table);

const mp_obj_module_t tq_user_cmodule = {
    .base = { &mp_type_module },
    .globals = (mp_obj_dict_t *)&tq_module_globals,
};

MP_REGISTER_MODULE(MP_QSTR__ticketq, tq_user_cmodule);
#endif
