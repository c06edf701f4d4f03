/*
 * Test fixture: the kernel MAD layer's RMPP sender role for OpenSM under ibsim.
 *
 * On a real HCA, OpenSM's ibumad vendor layer registers its SA agent with RMPP version 1
 * (opensm 3.3.23 libvendor/osm_vendor_ibumad.c:953-963) and hands a long GetTable answer to
 * umad_send whole, marked RMPP Active (osm_sa.c:512-514, osm_vendor_ibumad.c:1166,1189,1201);
 * the kernel cuts it into RMPP DATA segments and runs the transfer (Linux
 * drivers/infiniband/core/user_mad.c ib_umad_write, mad.c alloc_send_rmpp_list, mad_rmpp.c).
 * Under ibsim there is no kernel: libumad2sim (LD_PRELOAD) turns write() on the umad device
 * into one simulator packet of at most 256 octets (ibsim 0.10 umad2sim/umad2sim.c:901-902,
 * include/ibsim.h:71), so only the first MAD would arrive.
 *
 * Preloaded into OpenSM ahead of libumad2sim, this library wraps libibumad's umad_register,
 * umad_send and umad_recv (found with dlsym(RTLD_NEXT)) and does what the kernel's sender does:
 * segments RMPP-Active sends of agents registered with RMPP, sends them within the receiver's
 * window, consumes the ACK, STOP and ABORT MADs of those agents (the kernel never hands them
 * to a kernel-RMPP agent: mad_rmpp.c ib_process_rmpp_recv_wc returns NULL for them), advances
 * on ACK, sends again from the last ACK when none comes, and aborts a transfer on a bad ACK.
 *
 * The receiver role is the same defect seen from the other end: umad2sim hands a reader each
 * segment as a MAD of its own (umad2sim.c umad2sim_read copies one sim_request), so a tool that
 * registers its SA agent with RMPP and expects the kernel to put a long answer together
 * (saquery: ibdiag_sa.c sa_query, result_cnt from the length umad_recv reports) lists only the
 * records of the first segment, against ibsim as against any simulator. Preloaded into such a
 * tool (./ipoib diag does), the shim reassembles as mad_rmpp.c's receiver does: ACKs the first
 * segment and each full window of WINDOW segments (start_rmpp, continue_rmpp, ack_recv), ACKs
 * again a segment that was already acknowledged, and hands the whole message to umad_recv's
 * caller with the kernel's length (get_mad_len); a buffer too small gets ENOSPC and the length
 * first, as ib_umad_read. Everything else passes through untouched.
 *
 * Line numbers below are those of Linux 3.18's drivers/infiniband/core (as carried by OFED
 * 3.18 compat-rdma); current Linux (torvalds/linux 05909cd9) has the same logic in the same
 * functions. Not done, as nothing here needs it: dual-sided RMPP (init_newwin's repwin,
 * ack_ds_ack), keeping segments that arrive out of order (umad2sim's sockets keep the order;
 * such a segment is dropped and comes again after the sender's ACK timeout), the receiver's
 * 40 s timeout (a tool that stops waiting exits; at most MAX_RECEIVES transfers are kept, the
 * oldest dropped), and telling OpenSM
 * of a transfer that ran out of retries: the kernel hands it back with status ETIMEDOUT
 * (mad.c:2616-2617 timeout_sends, user_mad.c:207-210 send_handler); this shim only drops it and
 * says so on stderr. A STOP or ABORT ends a transfer silently in both (IB_WC_REM_ABORT_ERR is
 * not reported to user space).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>

#define MAD_SIZE 256
#define HDR_LEN 56            /* MAD + RMPP + SA header: ib_get_mad_data_offset for the SA class */
#define SEG_SIZE (MAD_SIZE - HDR_LEN)  /* 200 attribute octets per segment (mad.c:883) */
#define RMPP_DATA (MAD_SIZE - 36)      /* IB_MGMT_RMPP_DATA: PayloadLength counts the SA header */
#define ACK_TIMEOUT_MS 2000   /* mad_rmpp.c:583-586 send_next_seg: "2 seconds for an ACK" */
#define WINDOW 64             /* mad_rmpp.c window_size: 512 receive buffers >> 3 (mad.c mad_recvq_size) */
#define MAX_RECEIVES 16       /* transfers being put together at once; the oldest goes first */
#define MAX_MESSAGE (1 << 20) /* a longer message is dropped, as the project's SA client STOPs it */

enum { TYPE_DATA = 1, TYPE_ACK = 2, TYPE_STOP = 3, TYPE_ABORT = 4 };
enum { FLAG_ACTIVE = 1, FLAG_FIRST = 2, FLAG_LAST = 4 };
enum { STATUS_RESX = 1, ABORT_MIN = 118, STATUS_W2S = 122, STATUS_S2B = 123, STATUS_BAD_STATUS = 124,
       ABORT_MAX = 127 };

/* MAD offsets (IBA 13.4.2, 13.6.2). */
#define M_CLASS 1
#define M_METHOD 3
#define M_TID 8
#define R_VERSION 24
#define R_TYPE 25
#define R_FLAGS 26
#define R_STATUS 27
#define R_SEG 28
#define R_PAYLEN 32

struct transfer {
    struct transfer *next;
    int fd, agent, retries_left, max_retries;
    int seg_count, pad, seg_num, last_ack, newwin;
    int windows_by_ack, timeouts; /* for the end-of-transfer line the test reads */
    struct timespec deadline;
    struct ib_user_mad *umad; /* OpenSM's whole send: umad header, then the long MAD */
};

static int (*real_register)(int, int, int, uint8_t, long *);
static int (*real_send)(int, int, void *, int, int, int);
static int (*real_recv)(int, void *, int *, int);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t started = PTHREAD_ONCE_INIT;
static struct transfer *transfers;
static unsigned char kernel_rmpp[64]; /* agent id -> registered with an RMPP version */

static void start_timer(void);

__attribute__((constructor)) static void init(void)
{
    pthread_condattr_t a;
    real_register = dlsym(RTLD_NEXT, "umad_register");
    real_send = dlsym(RTLD_NEXT, "umad_send");
    real_recv = dlsym(RTLD_NEXT, "umad_recv");
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC); /* deadlines are CLOCK_MONOTONIC */
    pthread_cond_init(&wake, &a);
}

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
static void put32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v; }
static uint8_t *mad_of(struct ib_user_mad *u) { return (uint8_t *)u->data; }

/* mad.c:918 ib_mad_kernel_rmpp_agent: the kernel does RMPP for agents registered with a version. */
int umad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version, long method_mask[16 / sizeof(long)])
{
    int id = real_register(fd, mgmt_class, mgmt_version, rmpp_version, method_mask);
    if (id >= 0 && id < (int)sizeof kernel_rmpp)
        kernel_rmpp[id] = rmpp_version != 0;
    return id;
}

/* Of the classes with RMPP (mad.c:1002-1012 ib_is_mad_class_rmpp) only subnet administration,
 * whose 56 header octets (ib_get_mad_data_offset) this shim knows: the one OpenSM segments. */
static int rmpp_class(int c)
{
    return c == 0x03;
}

static void deadline_in(struct timespec *t, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long)(ms % 1000) * 1000000;
    if (t->tv_nsec >= 1000000000) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000;
    }
}

/* mad_rmpp.c:561-589 send_next_seg: the next segment, with First and PayloadLength = the whole
 * payload on segment 1 and Last and PayloadLength = its own payload on the last; header fields
 * as mad.c:905-908 alloc_send_rmpp_list sets them (RMPPVersion 1, type DATA, Active). */
static void send_next_seg(struct transfer *t)
{
    uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
    struct ib_user_mad *u = (struct ib_user_mad *)buf;
    uint8_t *mad = mad_of(u);
    int n = ++t->seg_num, from = (n - 1) * SEG_SIZE;
    int len = n == t->seg_count ? SEG_SIZE - t->pad : SEG_SIZE;
    uint32_t paylen = 0;

    memcpy(u, t->umad, sizeof *u);
    memcpy(mad, mad_of(t->umad), HDR_LEN);
    memset(mad + HDR_LEN, 0, SEG_SIZE); /* mad.c:901-903 zeroes the padding */
    memcpy(mad + HDR_LEN, mad_of(t->umad) + HDR_LEN + from, len);
    mad[R_VERSION] = 1;
    mad[R_TYPE] = TYPE_DATA;
    mad[R_FLAGS] = (mad[R_FLAGS] & 0xf8) | FLAG_ACTIVE; /* RRespTime kept as OpenSM set it */
    mad[R_STATUS] = 0;
    put32(mad + R_SEG, n);
    if (n == 1) {
        mad[R_FLAGS] |= FLAG_FIRST;
        paylen = t->seg_count * RMPP_DATA - t->pad;
    }
    if (n == t->seg_count) {
        mad[R_FLAGS] |= FLAG_LAST;
        paylen = RMPP_DATA - t->pad;
    }
    put32(mad + R_PAYLEN, paylen);
    if (real_send(t->fd, t->agent, u, MAD_SIZE, 0, 0) < 0)
        fprintf(stderr, "umad_rmpp_shim: sending segment %d failed (%m); it goes again on the ACK timeout\n", n);
    deadline_in(&t->deadline, ACK_TIMEOUT_MS);
}

/* ib_process_rmpp_send_wc (mad_rmpp.c:893-930) sends on after each completion until the
 * window's last segment or the transfer's last is out. */
static void send_window(struct transfer *t)
{
    while (t->seg_num < t->newwin && t->seg_num < t->seg_count)
        send_next_seg(t);
}

/* Ends a transfer, with one line on stderr (OpenSM's output) saying how it went. */
static void drop(struct transfer *t, const char *how)
{
    uint64_t tid = 0;
    for (int i = 0; i < 8; i++)
        tid = tid << 8 | mad_of(t->umad)[M_TID + i];
    fprintf(stderr, "umad_rmpp_shim: TID 0x%016llx to LID %u: %s after %d of %d segments; %d windows opened by "
            "ACKs, %d ACK timeouts\n", (unsigned long long)tid, ntohs(t->umad->addr.lid), how, t->last_ack,
            t->seg_count, t->windows_by_ack, t->timeouts);
    for (struct transfer **p = &transfers; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    free(t->umad);
    free(t);
}

/* mad_rmpp.c:212-239 nack_recv: an ABORT back to the sender of `about`, its method's R bit flipped. */
static void nack(struct transfer *t, const uint8_t *about, int status)
{
    uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
    struct ib_user_mad *u = (struct ib_user_mad *)buf;
    uint8_t *mad = mad_of(u);

    memcpy(u, t->umad, sizeof *u);
    memset(mad, 0, MAD_SIZE);
    memcpy(mad, about, HDR_LEN);
    mad[M_METHOD] ^= 0x80;
    mad[R_VERSION] = 1;
    mad[R_TYPE] = TYPE_ABORT;
    mad[R_FLAGS] = (mad[R_FLAGS] & 0xf8) | FLAG_ACTIVE;
    mad[R_STATUS] = status;
    put32(mad + R_SEG, 0);
    put32(mad + R_PAYLEN, 0);
    real_send(t->fd, t->agent, u, MAD_SIZE, 0, 0);
}

/* mad.c ib_find_send_mad: the send of this TID and class to the MAD's source. */
static struct transfer *find(const struct ib_user_mad *u)
{
    const uint8_t *mad = mad_of((struct ib_user_mad *)u);
    for (struct transfer *t = transfers; t; t = t->next) {
        const uint8_t *ours = mad_of(t->umad);
        if (!memcmp(ours + M_TID, mad + M_TID, 8) && ours[M_CLASS] == mad[M_CLASS]
                && t->umad->addr.lid == u->addr.lid)
            return t;
    }
    return NULL;
}

/* mad_rmpp.c:641-733 process_rmpp_ack. */
static void on_ack(struct transfer *t, const uint8_t *mad)
{
    int seg_num = get32(mad + R_SEG), newwin = get32(mad + R_PAYLEN);

    if (mad[R_STATUS]) {
        nack(t, mad, STATUS_BAD_STATUS);
        drop(t, "ABORT 124 (ACK with a status) sent");
    } else if (newwin < seg_num) {
        nack(t, mad, STATUS_W2S);
        drop(t, "ABORT 122 (window too small) sent");
    } else if (seg_num > t->seg_count || seg_num > t->newwin) {
        nack(t, mad, STATUS_S2B);
        drop(t, "ABORT 123 (segment number too big) sent");
    } else if (newwin < t->newwin || seg_num < t->last_ack) {
        /* an old ACK */
    } else {
        if (seg_num > t->last_ack) {
            t->last_ack = seg_num;
            t->retries_left = t->max_retries;
        }
        t->newwin = newwin;
        if (t->last_ack == t->seg_count) {
            drop(t, "done"); /* no response expected: the final ACK completes the send (mad_rmpp.c:701-712) */
        } else if (t->seg_num < t->newwin && t->seg_num < t->seg_count) {
            t->windows_by_ack++;
            send_window(t);
        }
    }
}

/* mad_rmpp.c:768-795 process_rmpp_stop and process_rmpp_abort: the send ends (abort_send);
 * a status outside the type's range is answered with ABORT 124. */
static void on_stop_or_abort(struct transfer *t, const uint8_t *mad)
{
    int s = mad[R_STATUS];
    if (mad[R_TYPE] == TYPE_STOP ? s != STATUS_RESX : (s < ABORT_MIN || s > ABORT_MAX))
        nack(t, mad, STATUS_BAD_STATUS);
    drop(t, mad[R_TYPE] == TYPE_STOP ? "ended by the receiver's STOP" : "ended by the receiver's ABORT");
}

int umad_send(int fd, int agent, void *umad, int length, int timeout_ms, int retries)
{
    struct ib_user_mad *u = umad;
    uint8_t *mad = mad_of(u);
    struct transfer *t;

    /* user_mad.c:511-520 ib_umad_write: the kernel takes RMPP Active MADs of RMPP classes from
     * kernel-RMPP agents; mad_rmpp.c:868-879 ib_send_rmpp_mad sends non-DATA ones (and OpenSM
     * sends type 0) as they are: only whole answers are segmented here. */
    if (agent < 0 || agent >= (int)sizeof kernel_rmpp || !kernel_rmpp[agent] || length < HDR_LEN
            || !rmpp_class(mad[M_CLASS]) || !(mad[R_FLAGS] & FLAG_ACTIVE)
            || (mad[R_TYPE] != 0 && mad[R_TYPE] != TYPE_DATA))
        return real_send(fd, agent, umad, length, timeout_ms, retries);

    t = calloc(1, sizeof *t);
    if (!t || !(t->umad = malloc(sizeof *u + length))) {
        free(t);
        errno = ENOMEM;
        return -ENOMEM;
    }
    memcpy(t->umad, u, sizeof *u + length);
    t->fd = fd;
    t->agent = agent;
    t->max_retries = t->retries_left = retries;
    /* mad.c:853-863 get_pad_size and 875-899 alloc_send_rmpp_list: data_len octets after the
     * 56 header octets in segments of 200; an empty answer is one segment of padding. */
    int data_len = length - HDR_LEN;
    t->pad = data_len ? (SEG_SIZE - data_len % SEG_SIZE) % SEG_SIZE : SEG_SIZE;
    t->seg_count = (data_len + t->pad) / SEG_SIZE;
    t->newwin = 1; /* mad_rmpp.c:835-866 init_newwin */
    pthread_once(&started, start_timer);
    pthread_mutex_lock(&lock);
    t->next = transfers;
    transfers = t;
    send_next_seg(t);
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return 0;
}

/* ---- the receiver role ---------------------------------------------------------------------- */

struct receive {
    struct receive *next;
    int fd, agent, seg_num, newwin, last_ack;
    size_t data_len;          /* attribute octets so far (200 per segment) */
    struct ib_user_mad *msg;  /* the first segment's umad and 56 header octets, then the data */
    size_t room;              /* octets allocated after the umad header */
};

static struct receive *receives;
/* A whole message whose reader's buffer was too small (ENOSPC): handed over on the next call. */
static struct ib_user_mad *ready;
static int ready_fd = -1, ready_agent, ready_len;

/* mad_rmpp.c find_rmpp_recv: the transfer of this TID and class from the segment's source. */
static struct receive *find_receive(int fd, const struct ib_user_mad *u)
{
    const uint8_t *mad = mad_of((struct ib_user_mad *)u);
    for (struct receive *r = receives; r; r = r->next) {
        const uint8_t *ours = mad_of(r->msg);
        if (r->fd == fd && !memcmp(ours + M_TID, mad + M_TID, 8) && ours[M_CLASS] == mad[M_CLASS]
                && r->msg->addr.lid == u->addr.lid)
            return r;
    }
    return NULL;
}

static void forget_receive(struct receive *r)
{
    for (struct receive **p = &receives; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r->msg);
    free(r);
}

/* mad_rmpp.c format_ack and ack_recv: the segment's 56 header octets, method's R bit flipped,
 * type ACK, Active, SegmentNumber the last in order, NewWindowLast the window's end; back to
 * the segment's source. */
static void ack(struct receive *r, const struct ib_user_mad *segment)
{
    uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
    struct ib_user_mad *u = (struct ib_user_mad *)buf;
    uint8_t *mad = mad_of(u);

    memset(buf, 0, sizeof buf);
    u->addr = segment->addr;
    memcpy(mad, mad_of((struct ib_user_mad *)segment), HDR_LEN);
    mad[M_METHOD] ^= 0x80;
    mad[R_TYPE] = TYPE_ACK;
    mad[R_FLAGS] = (mad[R_FLAGS] & 0xf8) | FLAG_ACTIVE;
    mad[R_STATUS] = 0;
    put32(mad + R_SEG, r->seg_num);
    put32(mad + R_PAYLEN, r->newwin);
    r->last_ack = r->seg_num;
    if (real_send(r->fd, r->agent, u, MAD_SIZE, 0, 0) < 0)
        fprintf(stderr, "umad_rmpp_shim: sending the ACK of segment %d failed (%m)\n", r->seg_num);
}

/* mad_rmpp.c get_mad_len: the header, the segments, less the last segment's padding (its
 * PayloadLength counts the 20 SA header octets: IB_MGMT_RMPP_DATA). */
static int message_len(struct receive *r, const uint8_t *last)
{
    int pad = RMPP_DATA - (int)get32(last + R_PAYLEN);
    if (pad > RMPP_DATA || pad < 0)
        pad = 0;
    return HDR_LEN + r->seg_num * SEG_SIZE - pad;
}

/* One DATA segment of an RMPP transfer (mad_rmpp.c process_rmpp_data, start_rmpp,
 * continue_rmpp): returns the whole message's length when this was its last segment (the
 * message is then `ready`), else 0. */
static int on_data(int fd, int agent, const struct ib_user_mad *u)
{
    const uint8_t *mad = mad_of((struct ib_user_mad *)u);
    uint32_t seg = get32(mad + R_SEG);
    struct receive *r = find_receive(fd, u);

    if (mad[R_STATUS])
        return 0; /* mad_rmpp.c:1006-1009: a DATA segment with a status is dropped (NACKed there) */
    if (mad[R_FLAGS] & FLAG_FIRST) {
        if (seg != 1)
            return 0;
        if (r) { /* the first segment again: the ACK was lost */
            ack(r, u);
            return 0;
        }
        int count = 0;
        struct receive *oldest = NULL;
        for (struct receive *x = receives; x; x = x->next, count++)
            oldest = x;
        if (count >= MAX_RECEIVES) {
            fprintf(stderr, "umad_rmpp_shim: %d transfers at once: the oldest is dropped\n", count);
            forget_receive(oldest);
        }
        r = calloc(1, sizeof *r);
        if (!r || !(r->msg = malloc(sizeof *u + HDR_LEN + 16 * SEG_SIZE))) {
            free(r);
            return 0;
        }
        r->room = HDR_LEN + 16 * SEG_SIZE;
        memcpy(r->msg, u, sizeof *u + HDR_LEN);
        r->fd = fd;
        r->agent = agent;
        r->newwin = 1;
        r->next = receives;
        receives = r;
    } else if (!r || seg == 0) {
        return 0; /* continue_rmpp: no transfer of this TID (drop1) */
    } else if (seg > (uint32_t)r->newwin) {
        return 0; /* beyond the window (drop3) */
    } else if (seg <= (uint32_t)r->last_ack) {
        ack(r, u); /* a repeat of what was acknowledged: the ACK was lost */
        return 0;
    } else if (seg != (uint32_t)r->seg_num + 1) {
        return 0; /* out of order: comes again from the last ACK */
    }
    if (HDR_LEN + (size_t)seg * SEG_SIZE > r->room) {
        size_t room = r->room * 2;
        struct ib_user_mad *bigger = room > MAX_MESSAGE ? NULL : realloc(r->msg, sizeof *u + room);
        if (!bigger) {
            fprintf(stderr, "umad_rmpp_shim: a message of more than %zu octets is dropped\n", r->room);
            forget_receive(r);
            return 0;
        }
        r->msg = bigger;
        r->room = room;
    }
    memcpy((uint8_t *)mad_of(r->msg) + HDR_LEN + (size_t)(seg - 1) * SEG_SIZE, mad + HDR_LEN, SEG_SIZE);
    r->seg_num = seg;
    if (mad[R_FLAGS] & FLAG_LAST) { /* complete_rmpp: ACK, then the message to the reader */
        ack(r, u);
        int len = message_len(r, mad);
        free(ready);
        ready = r->msg;
        ready->length = sizeof *u + len;
        ready_fd = fd;
        ready_agent = agent;
        ready_len = len;
        r->msg = NULL;
        forget_receive(r);
        return len;
    }
    if (seg == 1) { /* start_rmpp: the first window */
        r->newwin = 1 + WINDOW;
        ack(r, u);
    } else if (r->seg_num == r->newwin) {
        r->newwin += WINDOW;
        ack(r, u);
    }
    return 0;
}

/* ib_umad_read: the whole message when it fits the reader's buffer, else ENOSPC with the umad
 * header (its length field) and the length needed; the message stays for the next read. */
static int hand_over(void *umad, int *length)
{
    int agent = ready_agent;
    if (*length < ready_len) {
        memcpy(umad, ready, sizeof(struct ib_user_mad));
        *length = ready_len;
        errno = ENOSPC;
        return -ENOSPC;
    }
    memcpy(umad, ready, sizeof(struct ib_user_mad) + ready_len);
    *length = ready_len;
    free(ready);
    ready = NULL;
    ready_fd = -1;
    return agent;
}

int umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
    int room = *length;
    pthread_mutex_lock(&lock);
    if (ready && ready_fd == fd) {
        int agent = hand_over(umad, length);
        pthread_mutex_unlock(&lock);
        return agent;
    }
    pthread_mutex_unlock(&lock);
    for (;;) {
        *length = room;
        int agent = real_recv(fd, umad, length, timeout_ms);
        uint8_t *mad = mad_of(umad);
        if (agent < 0 || agent >= (int)sizeof kernel_rmpp || !kernel_rmpp[agent] || *length < HDR_LEN
                || !rmpp_class(mad[M_CLASS]) || !(mad[R_FLAGS] & FLAG_ACTIVE)
                || (mad[R_TYPE] == TYPE_DATA && *length < MAD_SIZE))
            return agent;
        pthread_mutex_lock(&lock);
        if (mad[R_TYPE] == TYPE_DATA) {
            if (on_data(fd, agent, umad) > 0) {
                *length = room;
                agent = hand_over(umad, length);
                pthread_mutex_unlock(&lock);
                return agent;
            }
            pthread_mutex_unlock(&lock);
            continue;
        }
        /* An ACK, STOP or ABORT (or a bad type): the kernel keeps it (mad_rmpp.c:797-833). */
        struct transfer *t = find(umad);
        if (t && mad[R_TYPE] == TYPE_ACK)
            on_ack(t, mad);
        else if (t && (mad[R_TYPE] == TYPE_STOP || mad[R_TYPE] == TYPE_ABORT))
            on_stop_or_abort(t, mad);
        pthread_mutex_unlock(&lock);
    }
}

/* mad.c timeout_sends / retry_send and mad_rmpp.c:932-950 ib_retry_rmpp: no ACK within the
 * timeout sends again from the segment after the last ACK, while retries are left. */
static void *retransmit(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        struct timespec now, next = {0, 0};
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (struct transfer *t = transfers, *after; t; t = after) {
            after = t->next;
            if (t->deadline.tv_sec < now.tv_sec
                    || (t->deadline.tv_sec == now.tv_sec && t->deadline.tv_nsec <= now.tv_nsec)) {
                t->timeouts++;
                if (t->retries_left-- <= 0) {
                    drop(t, "dropped, no ACK within the retries");
                    continue;
                }
                t->seg_num = t->last_ack;
                send_next_seg(t); /* one segment even when the window is full, as ib_retry_rmpp */
                send_window(t);
            }
            if (!next.tv_sec || t->deadline.tv_sec < next.tv_sec
                    || (t->deadline.tv_sec == next.tv_sec && t->deadline.tv_nsec < next.tv_nsec))
                next = t->deadline;
        }
        if (next.tv_sec)
            pthread_cond_timedwait(&wake, &lock, &next);
        else
            pthread_cond_wait(&wake, &lock);
    }
    return NULL;
}

static void start_timer(void)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, retransmit, NULL) == 0)
        pthread_detach(thread);
    else
        fprintf(stderr, "umad_rmpp_shim: no retransmission thread (%m)\n");
}
