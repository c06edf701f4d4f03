/*
 * A stand-in for libibverbs.so.1 with one HCA ("fake0", one port, LID 7) whose queue pairs
 * deliver to each other in memory: it lets the Java provider's data path run on a machine
 * without RDMA hardware. It is compiled against the system's <infiniband/verbs.h>, so it reads
 * and writes every struct exactly as a real driver would; it checks what the provider hands it
 * (state transitions and their masks, SGEs inside registered memory, free order of resources)
 * and records every violation for the test to assert on.
 *
 * Reliable connected: RC queue pairs (with or without a shared receive queue) carry SENDs between
 * two QPs of the fake in-process. Their transitions must carry exactly the attribute masks that
 * ibv_modify_qp(3) requires of IBV_QPT_RC; the attribute values are kept for the test to read
 * (fake_rc_attr). A send is segmented into PSNs of the path MTU; the responder accepts it only
 * when the PSNs the two sides were given agree, answers a missing receive with an RNR NAK that it
 * does not wait out (the requester fails with IBV_WC_RNR_RETRY_EXC_ERR at once), a too-short
 * buffer with an invalid-request NAK, a buffer whose MR is gone with a remote operational error;
 * a peer that is not connected never answers, so the requester fails with a retry-exceeded error
 * after retry_cnt retransmissions. An error moves a QP to ERROR, where its outstanding and new work
 * completes with a flush error, and raises IBV_EVENT_QP_LAST_WQE_REACHED for a QP of an SRQ; the
 * first packet a QP receives in RTR raises IBV_EVENT_COMM_EST.
 *
 * Test support only: built by FakeVerbsTest with gcc -shared.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* verbs.h turns these into inline wrappers; the library exports the plain functions. */
#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#define FAKE_LID 7
#define FAKE_SM_LID 1
#define NODE_GUID 0x0002c90300001234ULL
#define MAX_OBJ 64
#define GRH_LEN 40

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char violations[4096];
static int legacy;
static int link_layer = IBV_LINK_LAYER_INFINIBAND;
static int calls_query_port_ex, calls_query_port_compat, cq_event_acks, async_acks;
/* Calls of the context's post functions and the work requests they carried. */
static int calls_post_send, calls_post_recv, wrs_post_send, wrs_post_recv;
static int live_ctx, live_pd, live_channel, live_lists;

static void violation(const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(violations);
	if (n + 2 >= sizeof(violations))
		return;
	va_start(ap, fmt);
	vsnprintf(violations + n, sizeof(violations) - n - 1, fmt, ap);
	va_end(ap);
	strncat(violations, "; ", sizeof(violations) - strlen(violations) - 1);
}

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc *ring;
	int cap, head, count, armed;
};

struct fake_channel {
	struct ibv_comp_channel ch;
	struct fake_cq *signaled;
};

struct fake_recv {
	uint64_t wr_id, addr;
	uint32_t length;
};

struct fake_srq {
	struct ibv_srq srq;
	struct fake_recv *rq;
	int rq_cap, rq_head, rq_count;
};

struct fake_qp {
	struct ibv_qp qp;
	uint32_t qkey;
	uint16_t pkey_index;
	struct fake_recv *rq;
	int rq_cap, rq_head, rq_count;
	uint8_t mgid[8][16];
	uint16_t mlid[8];
	int nmcast;
	/* RC */
	struct fake_srq *srq;
	struct ibv_ah_attr av;
	uint32_t access, dest_qpn, rq_psn, sq_psn;
	int path_mtu, timeout, retry_cnt, rnr_retry, min_rnr_timer, max_dest_rd_atomic, max_rd_atomic;
	int established, last_wqe;
};

struct fake_ah {
	struct ibv_ah ah;
	struct ibv_ah_attr attr;
};

static struct ibv_device device = { .node_type = IBV_NODE_CA, .transport_type = IBV_TRANSPORT_IB,
				     .name = "fake0", .dev_name = "uverbs0" };
static struct fake_cq *cqs[MAX_OBJ];
static struct fake_qp *qps[MAX_OBJ];
static struct fake_srq *srqs[MAX_OBJ];
static struct fake_ah *ahs[MAX_OBJ];
static struct ibv_mr *mrs[MAX_OBJ];
static struct { int type, port; void *element; } async_queue[64];
static int async_count;
static int rc_retransmissions;
static uint32_t next_qpn = 0x1000, next_key = 0x100;

static int add(void **table, void *obj)
{
	for (int i = 0; i < MAX_OBJ; i++)
		if (!table[i]) {
			table[i] = obj;
			return 0;
		}
	return -1;
}

static int del(void **table, void *obj)
{
	for (int i = 0; i < MAX_OBJ; i++)
		if (table[i] == obj) {
			table[i] = NULL;
			return 0;
		}
	return -1;
}

static int live(void **table)
{
	int n = 0;
	for (int i = 0; i < MAX_OBJ; i++)
		n += table[i] != NULL;
	return n;
}

/* ---- test hooks ------------------------------------------------------------------------- */

const char *fake_violations(void) { return violations; }

void fake_set_legacy(int on) { legacy = on; }

void fake_set_link_layer(int layer) { link_layer = layer; }

int fake_calls(const char *what)
{
	if (!strcmp(what, "query_port_ex")) return calls_query_port_ex;
	if (!strcmp(what, "query_port_compat")) return calls_query_port_compat;
	if (!strcmp(what, "cq_event_acks")) return cq_event_acks;
	if (!strcmp(what, "async_acks")) return async_acks;
	if (!strcmp(what, "rc_retransmissions")) return rc_retransmissions;
	if (!strcmp(what, "post_send")) return calls_post_send;
	if (!strcmp(what, "post_recv")) return calls_post_recv;
	if (!strcmp(what, "post_send_wrs")) return wrs_post_send;
	if (!strcmp(what, "post_recv_wrs")) return wrs_post_recv;
	return -1;
}

/* Live resources, e.g. "qp=1 cq=2"; "" when everything was freed. */
const char *fake_leaks(void)
{
	static char buf[256];
	buf[0] = 0;
	int q = live((void **)qps), c = live((void **)cqs), a = live((void **)ahs), m = live((void **)mrs);
	int s = live((void **)srqs);
	if (s) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "srq=%d ", s);
	if (live_ctx) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "context=%d ", live_ctx);
	if (live_pd) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "pd=%d ", live_pd);
	if (live_channel) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "channel=%d ", live_channel);
	if (live_lists) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "device_list=%d ", live_lists);
	if (q) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "qp=%d ", q);
	if (c) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "cq=%d ", c);
	if (a) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "ah=%d ", a);
	if (m) snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "mr=%d ", m);
	return buf;
}

void fake_reset(void)
{
	pthread_mutex_lock(&lock);
	violations[0] = 0;
	legacy = 0;
	link_layer = IBV_LINK_LAYER_INFINIBAND;
	calls_query_port_ex = calls_query_port_compat = cq_event_acks = async_acks = rc_retransmissions = 0;
	calls_post_send = calls_post_recv = wrs_post_send = wrs_post_recv = 0;
	pthread_mutex_unlock(&lock);
}

/* Queues an async event (type from enum ibv_event_type) for port 1 and wakes the async fd. */
static struct ibv_context *the_context;

/* Queues an async event and wakes the async fd; lock held. */
static int queue_async(int type, int port, void *element)
{
	uint64_t one = 1;
	if (!the_context || async_count >= 64)
		return -1;
	async_queue[async_count].type = type;
	async_queue[async_count].port = port;
	async_queue[async_count].element = element;
	async_count++;
	return write(the_context->async_fd, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
}

int fake_raise_async_event(int type, int port)
{
	pthread_mutex_lock(&lock);
	int r = queue_async(type, port, NULL);
	pthread_mutex_unlock(&lock);
	return r;
}

/* Raises a QP event (IBV_EVENT_QP_FATAL ...) for the QP with that number; -1 if there is none. */
int fake_raise_qp_event(int type, uint32_t qpn)
{
	int r = -1;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_OBJ; i++)
		if (qps[i] && qps[i]->qp.qp_num == qpn) {
			if (type == IBV_EVENT_QP_FATAL || type == IBV_EVENT_QP_REQ_ERR || type == IBV_EVENT_QP_ACCESS_ERR)
				qps[i]->qp.state = IBV_QPS_ERR;
			r = queue_async(type, 0, &qps[i]->qp);
		}
	pthread_mutex_unlock(&lock);
	return r;
}

/* An attribute an RC QP was given, by its ibv_qp_attr name (and "state", "dlid", "sl"); -1 if unknown. */
long long fake_rc_attr(uint32_t qpn, const char *name)
{
	long long v = -1;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_OBJ; i++) {
		struct fake_qp *q = qps[i];
		if (!q || q->qp.qp_num != qpn)
			continue;
		if (!strcmp(name, "state")) v = q->qp.state;
		else if (!strcmp(name, "qp_access_flags")) v = q->access;
		else if (!strcmp(name, "pkey_index")) v = q->pkey_index;
		else if (!strcmp(name, "dest_qp_num")) v = q->dest_qpn;
		else if (!strcmp(name, "rq_psn")) v = q->rq_psn;
		else if (!strcmp(name, "sq_psn")) v = q->sq_psn;
		else if (!strcmp(name, "path_mtu")) v = q->path_mtu;
		else if (!strcmp(name, "timeout")) v = q->timeout;
		else if (!strcmp(name, "retry_cnt")) v = q->retry_cnt;
		else if (!strcmp(name, "rnr_retry")) v = q->rnr_retry;
		else if (!strcmp(name, "min_rnr_timer")) v = q->min_rnr_timer;
		else if (!strcmp(name, "max_dest_rd_atomic")) v = q->max_dest_rd_atomic;
		else if (!strcmp(name, "max_rd_atomic")) v = q->max_rd_atomic;
		else if (!strcmp(name, "dlid")) v = q->av.dlid;
		else if (!strcmp(name, "sl")) v = q->av.sl;
		else if (!strcmp(name, "is_global")) v = q->av.is_global;
		else if (!strcmp(name, "port_num")) v = q->av.port_num;
		else if (!strcmp(name, "srq")) v = q->srq != NULL;
	}
	pthread_mutex_unlock(&lock);
	return v;
}

/* ---- devices and contexts --------------------------------------------------------------- */

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = calloc(2, sizeof(*list));
	list[0] = &device;
	if (num)
		*num = 1;
	live_lists++;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	live_lists--;
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev) { return dev->name; }

__be64 ibv_get_device_guid(struct ibv_device *dev) { return htobe64(NODE_GUID); }

static void fill_port(struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_2048;
	a->gid_tbl_len = 2;
	a->pkey_tbl_len = 2;
	a->lid = FAKE_LID;
	a->sm_lid = FAKE_SM_LID;
	a->lmc = 0;
	a->sm_sl = 0;
	a->active_width = 2;	/* 4x */
	a->active_speed = 4;	/* QDR: 40 Gb/s */
	a->phys_state = 5;
	a->link_layer = link_layer;
}

static int fake_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t size)
{
	calls_query_port_ex++;
	if (size != sizeof(struct ibv_port_attr))
		violation("query_port size %zu, expected %zu", size, sizeof(struct ibv_port_attr));
	if (port != 1)
		return EINVAL;
	fill_port(attr);
	return 0;
}

int ibv_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	struct ibv_port_attr full;
	calls_query_port_compat++;
	if (port != 1)
		return EINVAL;
	fill_port(&full);
	/* the compat struct ends before 'flags' */
	memcpy(attr, &full, offsetof(struct ibv_port_attr, flags));
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int fake_req_notify_cq(struct ibv_cq *cq, int solicited);
static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct verbs_context *v = calloc(1, sizeof(*v));
	struct ibv_context *ctx = &v->context;
	ctx->device = dev;
	ctx->ops.poll_cq = fake_poll_cq;
	ctx->ops.req_notify_cq = fake_req_notify_cq;
	ctx->ops.post_send = fake_post_send;
	ctx->ops.post_recv = fake_post_recv;
	ctx->ops.post_srq_recv = fake_post_srq_recv;
	ctx->async_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ctx->cmd_fd = -1;
	ctx->num_comp_vectors = 1;
	if (!legacy) {
		ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
		v->sz = sizeof(*v);
		v->query_port = fake_query_port;
	}
	pthread_mutex_lock(&lock);
	the_context = ctx;
	async_count = 0;
	live_ctx++;
	pthread_mutex_unlock(&lock);
	return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	if (live_pd)
		violation("ibv_close_device with %d protection domains alive", live_pd);
	if (live_channel)
		violation("ibv_close_device with %d completion channels alive", live_channel);
	pthread_mutex_lock(&lock);
	the_context = NULL;
	live_ctx--;
	pthread_mutex_unlock(&lock);
	close(ctx->async_fd);
	free(container_of(ctx, struct verbs_context, context));
	return 0;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	strcpy(a->fw_ver, "1.2.3");
	a->node_guid = htobe64(NODE_GUID);
	a->vendor_id = 0x2c9;
	a->vendor_part_id = 4099;
	a->max_qp = MAX_OBJ;
	a->max_qp_wr = 256;
	a->max_cq = MAX_OBJ;
	a->max_cqe = 1024;
	a->max_mr = MAX_OBJ;
	a->max_pd = 4;
	a->max_ah = MAX_OBJ;
	a->max_mcast_grp = 8;
	a->max_mcast_qp_attach = 8;
	a->max_pkeys = 2;
	a->phys_port_cnt = 1;
	a->max_srq = MAX_OBJ;
	a->max_srq_wr = 256;
	a->max_srq_sge = 1;
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	if (port != 1 || index < 0 || index >= 2)
		return -1;
	memset(gid, 0, sizeof(*gid));
	if (index == 0) {
		gid->global.subnet_prefix = htobe64(0xfe80000000000000ULL);
		gid->global.interface_id = htobe64(NODE_GUID + 1);
	}
	return 0;
}

int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
	if (port != 1 || index < 0 || index >= 2)
		return -1;
	*pkey = htobe16(index == 0 ? 0xffff : 0x8001);
	return 0;
}

/* ---- protection domain, memory ------------------------------------------------------------ */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	pd->context = ctx;
	live_pd++;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int q = live((void **)qps), a = live((void **)ahs), m = live((void **)mrs), s = live((void **)srqs);
	if (q || a || m || s) {
		violation("ibv_dealloc_pd with %d QPs, %d AHs, %d MRs, %d SRQs alive", q, a, m, s);
		return EBUSY;
	}
	live_pd--;
	free(pd);
	return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	if (!(access & IBV_ACCESS_LOCAL_WRITE))
		violation("ibv_reg_mr without IBV_ACCESS_LOCAL_WRITE (receives write into it)");
	struct ibv_mr *mr = calloc(1, sizeof(*mr));
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	pthread_mutex_lock(&lock);
	mr->lkey = mr->rkey = next_key++;
	if (add((void **)mrs, mr) < 0) {
		pthread_mutex_unlock(&lock);
		free(mr);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_unlock(&lock);
	return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	int r = del((void **)mrs, mr);
	pthread_mutex_unlock(&lock);
	if (r < 0)
		violation("ibv_dereg_mr of an unknown MR");
	else
		free(mr);
	return r < 0 ? EINVAL : 0;
}

/* An SGE is usable when it lies inside a registered region with its lkey. */
static int sge_valid(const struct ibv_sge *sge, const char *what)
{
	for (int i = 0; i < MAX_OBJ; i++) {
		struct ibv_mr *mr = mrs[i];
		if (mr && mr->lkey == sge->lkey) {
			uint64_t start = (uint64_t)(uintptr_t)mr->addr;
			if (sge->addr >= start && sge->addr + sge->length <= start + mr->length)
				return 1;
			violation("%s: SGE [0x%llx, +%u) outside its MR", what, (unsigned long long)sge->addr, sge->length);
			return 0;
		}
	}
	violation("%s: SGE lkey 0x%x is not a registered MR", what, sge->lkey);
	return 0;
}

/* ---- completion channels and CQs ---------------------------------------------------------- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct fake_channel *c = calloc(1, sizeof(*c));
	c->ch.context = ctx;
	c->ch.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	live_channel++;
	return &c->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	for (int i = 0; i < MAX_OBJ; i++)
		if (cqs[i] && cqs[i]->cq.channel == ch) {
			violation("ibv_destroy_comp_channel while a CQ uses it");
			return EBUSY;
		}
	close(ch->fd);
	live_channel--;
	free(container_of(ch, struct fake_channel, ch));
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context, struct ibv_comp_channel *channel,
			     int vector)
{
	if (cqe < 1 || cqe > 1024) {
		errno = EINVAL;
		return NULL;
	}
	struct fake_cq *c = calloc(1, sizeof(*c));
	c->cq.context = ctx;
	c->cq.channel = channel;
	c->cq.cq_context = cq_context;
	c->cq.cqe = cqe;
	c->cap = cqe;
	c->ring = calloc(cqe, sizeof(struct ibv_wc));
	pthread_mutex_lock(&lock);
	add((void **)cqs, c);
	pthread_mutex_unlock(&lock);
	return &c->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	for (int i = 0; i < MAX_OBJ; i++)
		if (qps[i] && (qps[i]->qp.send_cq == cq || qps[i]->qp.recv_cq == cq)) {
			violation("ibv_destroy_cq while QP 0x%x uses it", qps[i]->qp.qp_num);
			return EBUSY;
		}
	struct fake_cq *c = container_of(cq, struct fake_cq, cq);
	pthread_mutex_lock(&lock);
	del((void **)cqs, c);
	pthread_mutex_unlock(&lock);
	free(c->ring);
	free(c);
	return 0;
}

/* Called with the lock held. */
static void push_wc(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct fake_cq *c = container_of(cq, struct fake_cq, cq);
	if (c->count == c->cap) {
		violation("CQ overrun (%d entries)", c->cap);
		return;
	}
	c->ring[(c->head + c->count) % c->cap] = *wc;
	c->count++;
	if (c->armed && cq->channel) {
		uint64_t one = 1;
		c->armed = 0;
		container_of(cq->channel, struct fake_channel, ch)->signaled = c;
		if (write(cq->channel->fd, &one, sizeof(one)) != sizeof(one))
			violation("channel write failed");
	}
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *c = container_of(cq, struct fake_cq, cq);
	int got = 0;
	pthread_mutex_lock(&lock);
	while (got < n && c->count > 0) {
		wc[got++] = c->ring[c->head];
		c->head = (c->head + 1) % c->cap;
		c->count--;
	}
	pthread_mutex_unlock(&lock);
	return got;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	pthread_mutex_lock(&lock);
	container_of(cq, struct fake_cq, cq)->armed = 1;
	pthread_mutex_unlock(&lock);
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_context)
{
	uint64_t v;
	if (read(ch->fd, &v, sizeof(v)) != sizeof(v))
		return -1; /* errno EAGAIN: nothing to read, the caller polled first */
	struct fake_channel *c = container_of(ch, struct fake_channel, ch);
	*cq = &c->signaled->cq;
	*cq_context = c->signaled->cq.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n) { cq_event_acks += n; }

/* ---- queue pairs ------------------------------------------------------------------------- */

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	int own_rq = !init->srq;
	if ((init->qp_type != IBV_QPT_UD && init->qp_type != IBV_QPT_RC) || !init->send_cq || !init->recv_cq
	    || init->cap.max_send_sge < 1 || init->cap.max_send_wr < 1
	    || (own_rq && (init->cap.max_recv_sge < 1 || init->cap.max_recv_wr < 1))
	    || (init->srq && init->qp_type != IBV_QPT_RC) || !init->sq_sig_all) {
		violation("ibv_create_qp: bad init attributes (type %d, srq %p)", init->qp_type, (void *)init->srq);
		errno = EINVAL;
		return NULL;
	}
	struct fake_qp *q = calloc(1, sizeof(*q));
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = init->send_cq;
	q->qp.recv_cq = init->recv_cq;
	q->qp.srq = init->srq;
	q->srq = init->srq ? container_of(init->srq, struct fake_srq, srq) : NULL;
	q->qp.qp_type = init->qp_type;
	q->qp.state = IBV_QPS_RESET;
	q->rq_cap = own_rq ? init->cap.max_recv_wr : 1;
	q->rq = calloc(q->rq_cap, sizeof(struct fake_recv));
	init->cap.max_inline_data = 0;
	pthread_mutex_lock(&lock);
	q->qp.qp_num = next_qpn++;
	add((void **)qps, q);
	pthread_mutex_unlock(&lock);
	return &q->qp;
}

static void rc_error(struct fake_qp *q);
static int modify_rc(struct fake_qp *q, struct ibv_qp_attr *attr, int mask);

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	if (!(mask & IBV_QP_STATE)) {
		violation("modify_qp without IBV_QP_STATE");
		return EINVAL;
	}
	if (qp->qp_type == IBV_QPT_RC) {
		pthread_mutex_lock(&lock);
		int r = modify_rc(q, attr, mask);
		pthread_mutex_unlock(&lock);
		return r;
	}
	if (qp->state == IBV_QPS_RESET && attr->qp_state == IBV_QPS_INIT) {
		if (mask != (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) || attr->port_num != 1
		    || attr->pkey_index >= 2) {
			violation("modify_qp INIT: mask 0x%x port %u pkey_index %u", mask, attr->port_num,
				  attr->pkey_index);
			return EINVAL;
		}
		q->qkey = attr->qkey;
		q->pkey_index = attr->pkey_index;
	} else if (qp->state == IBV_QPS_INIT && attr->qp_state == IBV_QPS_RTR) {
		if (mask != IBV_QP_STATE) {
			violation("modify_qp RTR: mask 0x%x", mask);
			return EINVAL;
		}
	} else if (qp->state == IBV_QPS_RTR && attr->qp_state == IBV_QPS_RTS) {
		if (mask != (IBV_QP_STATE | IBV_QP_SQ_PSN)) {
			violation("modify_qp RTS: mask 0x%x", mask);
			return EINVAL;
		}
	} else {
		violation("modify_qp %d -> %d", qp->state, attr->qp_state);
		return EINVAL;
	}
	qp->state = attr->qp_state;
	return 0;
}

/*
 * The RC transitions with the attributes ibv_modify_qp(3) lists as required for IBV_QPT_RC (no
 * optional ones: the provider sets exactly these); lock held.
 */
static int modify_rc(struct fake_qp *q, struct ibv_qp_attr *attr, int mask)
{
	struct ibv_qp *qp = &q->qp;
	const int init_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	const int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
			     | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	const int rts_mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
			     | IBV_QP_MAX_QP_RD_ATOMIC;
	if (attr->qp_state == IBV_QPS_ERR) {
		if (mask != IBV_QP_STATE) {
			violation("modify_qp RC ERR: mask 0x%x", mask);
			return EINVAL;
		}
		if (qp->state != IBV_QPS_ERR) {
			qp->state = IBV_QPS_ERR;
			rc_error(q);
		}
		return 0;
	}
	if (qp->state == IBV_QPS_RESET && attr->qp_state == IBV_QPS_INIT) {
		if (mask != init_mask || attr->port_num != 1 || attr->pkey_index >= 2) {
			violation("modify_qp RC INIT: mask 0x%x port %u pkey_index %u", mask, attr->port_num,
				  attr->pkey_index);
			return EINVAL;
		}
		q->pkey_index = attr->pkey_index;
		q->access = attr->qp_access_flags;
	} else if (qp->state == IBV_QPS_INIT && attr->qp_state == IBV_QPS_RTR) {
		if (mask != rtr_mask || attr->ah_attr.port_num != 1 || attr->ah_attr.dlid == 0
		    || attr->path_mtu < IBV_MTU_256 || attr->path_mtu > IBV_MTU_4096 || attr->dest_qp_num > 0xffffff
		    || attr->rq_psn > 0xffffff) {
			violation("modify_qp RC RTR: mask 0x%x port %u dlid %u mtu %d dest_qp 0x%x rq_psn 0x%x", mask,
				  attr->ah_attr.port_num, attr->ah_attr.dlid, attr->path_mtu, attr->dest_qp_num,
				  attr->rq_psn);
			return EINVAL;
		}
		if (attr->path_mtu > IBV_MTU_2048) {
			/* The fake's port runs 2048 (active_mtu): an HCA refuses a larger path MTU. */
			violation("modify_qp RC RTR: path_mtu %d above the port's active MTU", attr->path_mtu);
			return EINVAL;
		}
		q->av = attr->ah_attr;
		q->path_mtu = attr->path_mtu;
		q->dest_qpn = attr->dest_qp_num;
		q->rq_psn = attr->rq_psn;
		q->max_dest_rd_atomic = attr->max_dest_rd_atomic;
		q->min_rnr_timer = attr->min_rnr_timer;
	} else if (qp->state == IBV_QPS_RTR && attr->qp_state == IBV_QPS_RTS) {
		if (mask != rts_mask || attr->sq_psn > 0xffffff || attr->timeout > 31 || attr->retry_cnt > 7
		    || attr->rnr_retry > 7) {
			violation("modify_qp RC RTS: mask 0x%x sq_psn 0x%x timeout %u retry %u rnr %u", mask, attr->sq_psn,
				  attr->timeout, attr->retry_cnt, attr->rnr_retry);
			return EINVAL;
		}
		q->sq_psn = attr->sq_psn;
		q->timeout = attr->timeout;
		q->retry_cnt = attr->retry_cnt;
		q->rnr_retry = attr->rnr_retry;
		q->max_rd_atomic = attr->max_rd_atomic;
	} else {
		violation("modify_qp RC %d -> %d", qp->state, attr->qp_state);
		return EINVAL;
	}
	qp->state = attr->qp_state;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	pthread_mutex_lock(&lock);
	int r = del((void **)qps, q);
	pthread_mutex_unlock(&lock);
	if (r < 0) {
		violation("ibv_destroy_qp of an unknown QP");
		return EINVAL;
	}
	free(q->rq);
	free(q);
	return 0;
}

/* ---- shared receive queues ----------------------------------------------------------------- */

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *init)
{
	if (init->attr.max_wr < 1 || init->attr.max_wr > 256 || init->attr.max_sge < 1) {
		violation("ibv_create_srq: max_wr %u max_sge %u", init->attr.max_wr, init->attr.max_sge);
		errno = EINVAL;
		return NULL;
	}
	struct fake_srq *s = calloc(1, sizeof(*s));
	s->srq.context = pd->context;
	s->srq.pd = pd;
	s->srq.srq_context = init->srq_context;
	s->rq_cap = init->attr.max_wr;
	s->rq = calloc(s->rq_cap, sizeof(struct fake_recv));
	pthread_mutex_lock(&lock);
	add((void **)srqs, s);
	pthread_mutex_unlock(&lock);
	return &s->srq;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct fake_srq *s = container_of(srq, struct fake_srq, srq);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_OBJ; i++)
		if (qps[i] && qps[i]->srq == s) {
			violation("ibv_destroy_srq while QP 0x%x uses it", qps[i]->qp.qp_num);
			pthread_mutex_unlock(&lock);
			return EBUSY;
		}
	int r = del((void **)srqs, s);
	pthread_mutex_unlock(&lock);
	if (r < 0) {
		violation("ibv_destroy_srq of an unknown SRQ");
		return EINVAL;
	}
	free(s->rq);
	free(s);
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct fake_srq *s = container_of(srq, struct fake_srq, srq);
	pthread_mutex_lock(&lock);
	for (; wr; wr = wr->next) {
		if (wr->num_sge != 1 || !sge_valid(wr->sg_list, "post_srq_recv")) {
			*bad = wr;
			pthread_mutex_unlock(&lock);
			return EINVAL;
		}
		if (s->rq_count == s->rq_cap) {
			*bad = wr;
			pthread_mutex_unlock(&lock);
			return ENOMEM;
		}
		struct fake_recv *r = &s->rq[(s->rq_head + s->rq_count++) % s->rq_cap];
		r->wr_id = wr->wr_id;
		r->addr = wr->sg_list[0].addr;
		r->length = wr->sg_list[0].length;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	if (gid->raw[0] != 0xff || lid < 0xc000 || q->nmcast == 8)
		return EINVAL;
	pthread_mutex_lock(&lock);
	memcpy(q->mgid[q->nmcast], gid->raw, 16);
	q->mlid[q->nmcast++] = lid;
	pthread_mutex_unlock(&lock);
	return 0;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < q->nmcast; i++)
		if (!memcmp(q->mgid[i], gid->raw, 16) && q->mlid[i] == lid) {
			memmove(q->mgid[i], q->mgid[i + 1], 16 * (q->nmcast - i - 1));
			memmove(&q->mlid[i], &q->mlid[i + 1], 2 * (q->nmcast - i - 1));
			q->nmcast--;
			pthread_mutex_unlock(&lock);
			return 0;
		}
	pthread_mutex_unlock(&lock);
	return EINVAL;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	if (attr->port_num != 1 || attr->dlid == 0) {
		errno = EINVAL;
		return NULL;
	}
	struct fake_ah *a = calloc(1, sizeof(*a));
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->attr = *attr;
	pthread_mutex_lock(&lock);
	add((void **)ahs, a);
	pthread_mutex_unlock(&lock);
	return &a->ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	struct fake_ah *a = container_of(ah, struct fake_ah, ah);
	pthread_mutex_lock(&lock);
	int r = del((void **)ahs, a);
	pthread_mutex_unlock(&lock);
	if (r < 0)
		return EINVAL;
	free(a);
	return 0;
}

/* ---- the data path ----------------------------------------------------------------------- */

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	pthread_mutex_lock(&lock);
	calls_post_recv++;
	if (q->srq) {
		violation("post_recv on QP 0x%x, which has an SRQ", qp->qp_num);
		*bad = wr;
		pthread_mutex_unlock(&lock);
		return EINVAL;
	}
	if (qp->state == IBV_QPS_ERR) {
		/* A QP in ERROR completes new receives with a flush error at once. */
		for (; wr; wr = wr->next) {
			wrs_post_recv++;
			struct ibv_wc wc = { .wr_id = wr->wr_id, .status = IBV_WC_WR_FLUSH_ERR, .opcode = IBV_WC_RECV,
					     .qp_num = qp->qp_num };
			push_wc(qp->recv_cq, &wc);
		}
		pthread_mutex_unlock(&lock);
		return 0;
	}
	for (; wr; wr = wr->next) {
		wrs_post_recv++;
		if (wr->num_sge != 1 || !sge_valid(wr->sg_list, "post_recv")) {
			*bad = wr;
			pthread_mutex_unlock(&lock);
			return EINVAL;
		}
		if (q->rq_count == q->rq_cap) {
			*bad = wr;
			pthread_mutex_unlock(&lock);
			return ENOMEM;
		}
		struct fake_recv *r = &q->rq[(q->rq_head + q->rq_count++) % q->rq_cap];
		r->wr_id = wr->wr_id;
		r->addr = wr->sg_list[0].addr;
		r->length = wr->sg_list[0].length;
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Delivers a datagram into the next posted receive of a QP; lock held. */
static void deliver(struct fake_qp *dst, struct fake_qp *src, const struct fake_ah *ah, const void *payload,
		    uint32_t len)
{
	if (dst->rq_count == 0)
		return; /* no receive posted: dropped, as on the wire */
	struct fake_recv r = dst->rq[dst->rq_head];
	dst->rq_head = (dst->rq_head + 1) % dst->rq_cap;
	dst->rq_count--;
	struct ibv_wc wc = { .wr_id = r.wr_id, .opcode = IBV_WC_RECV, .qp_num = dst->qp.qp_num,
			     .src_qp = src->qp.qp_num, .pkey_index = src->pkey_index, .slid = FAKE_LID,
			     .sl = ah->attr.sl };
	if (len + GRH_LEN > r.length) {
		wc.status = IBV_WC_LOC_LEN_ERR;
	} else {
		uint8_t *buf = (uint8_t *)(uintptr_t)r.addr;
		if (ah->attr.is_global) {
			/* IBA 8.3: IPVer 6, TClass, FlowLabel, PayLen, NxtHdr 0x1B, HopLmt, SGID, DGID */
			uint32_t w = htobe32(6u << 28 | (uint32_t)ah->attr.grh.traffic_class << 20
					     | (ah->attr.grh.flow_label & 0xfffff));
			uint16_t paylen = htobe16((uint16_t)(len + 20)); /* BTH+DETH+payload+ICRC as HW counts */
			union ibv_gid sgid;
			ibv_query_gid(NULL, 1, ah->attr.grh.sgid_index, &sgid);
			memcpy(buf, &w, 4);
			memcpy(buf + 4, &paylen, 2);
			buf[6] = 0x1b;
			buf[7] = ah->attr.grh.hop_limit;
			memcpy(buf + 8, sgid.raw, 16);
			memcpy(buf + 24, ah->attr.grh.dgid.raw, 16);
			wc.wc_flags = IBV_WC_GRH;
		}
		memcpy(buf + GRH_LEN, payload, len);
		wc.byte_len = len + GRH_LEN;
	}
	push_wc(dst->qp.recv_cq, &wc);
}

/* Whether a buffer still lies in a registered MR with its lkey (no violation: the responder checks). */
static int mr_covers(uint64_t addr, uint32_t length, uint32_t lkey)
{
	for (int i = 0; i < MAX_OBJ; i++) {
		struct ibv_mr *mr = mrs[i];
		if (mr && mr->lkey == lkey) {
			uint64_t start = (uint64_t)(uintptr_t)mr->addr;
			return addr >= start && addr + length <= start + mr->length;
		}
	}
	return 0;
}

/* A QP enters ERROR: its own posted receives flush; a QP of an SRQ raises LAST_WQE_REACHED. Lock held. */
static void rc_error(struct fake_qp *q)
{
	q->qp.state = IBV_QPS_ERR;
	while (q->srq == NULL && q->rq_count > 0) {
		struct fake_recv r = q->rq[q->rq_head];
		q->rq_head = (q->rq_head + 1) % q->rq_cap;
		q->rq_count--;
		struct ibv_wc wc = { .wr_id = r.wr_id, .status = IBV_WC_WR_FLUSH_ERR, .opcode = IBV_WC_RECV,
				     .qp_num = q->qp.qp_num };
		push_wc(q->qp.recv_cq, &wc);
	}
	if (q->srq && !q->last_wqe) {
		q->last_wqe = 1;
		queue_async(IBV_EVENT_QP_LAST_WQE_REACHED, 0, &q->qp);
	}
}

/* The requester's send completes with an error and the QP goes to ERROR (IBA 10.3.1). Lock held. */
static void rc_fail(struct fake_qp *q, uint64_t wr_id, enum ibv_wc_status status)
{
	struct ibv_wc wc = { .wr_id = wr_id, .status = status, .opcode = IBV_WC_SEND, .qp_num = q->qp.qp_num };
	push_wc(q->qp.send_cq, &wc);
	rc_error(q);
}

/* One RC SEND from q to its connected peer; lock held. */
static void rc_send(struct fake_qp *q, const struct ibv_send_wr *wr)
{
	const void *payload = (const void *)(uintptr_t)wr->sg_list[0].addr;
	uint32_t len = wr->sg_list[0].length;
	uint32_t mtu = 128u << q->path_mtu;
	uint32_t packets = len == 0 ? 1 : (len + mtu - 1) / mtu;
	struct fake_qp *d = NULL;
	for (int i = 0; i < MAX_OBJ; i++)
		if (qps[i] && qps[i]->qp.qp_type == IBV_QPT_RC && qps[i]->qp.qp_num == q->dest_qpn)
			d = qps[i];
	if (!d || q->av.dlid != FAKE_LID || (d->qp.state != IBV_QPS_RTR && d->qp.state != IBV_QPS_RTS)
	    || d->dest_qpn != q->qp.qp_num || d->rq_psn != q->sq_psn) {
		/* No responder answers (gone, not connected to us, or expecting other PSNs): the requester
		 * times out retry_cnt times, retransmitting, then fails. */
		rc_retransmissions += q->retry_cnt;
		rc_fail(q, wr->wr_id, IBV_WC_RETRY_EXC_ERR);
		return;
	}
	if (d->qp.state == IBV_QPS_RTR && !d->established) {
		d->established = 1;
		queue_async(IBV_EVENT_COMM_EST, 0, &d->qp);
	}
	struct fake_recv *rq = d->srq ? d->srq->rq : d->rq;
	int *head = d->srq ? &d->srq->rq_head : &d->rq_head;
	int *count = d->srq ? &d->srq->rq_count : &d->rq_count;
	int cap = d->srq ? d->srq->rq_cap : d->rq_cap;
	if (*count == 0) {
		/* RNR NAK; the fake does not wait: every retry finds no buffer either. */
		rc_fail(q, wr->wr_id, IBV_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	struct fake_recv r = rq[*head];
	*head = (*head + 1) % cap;
	(*count)--;
	struct ibv_wc rwc = { .wr_id = r.wr_id, .opcode = IBV_WC_RECV, .qp_num = d->qp.qp_num,
			      .src_qp = q->qp.qp_num, .pkey_index = d->pkey_index, .slid = FAKE_LID, .sl = q->av.sl };
	uint32_t lkey = 0;
	for (int i = 0; i < MAX_OBJ; i++)
		if (mrs[i] && r.addr >= (uint64_t)(uintptr_t)mrs[i]->addr
		    && r.addr < (uint64_t)(uintptr_t)mrs[i]->addr + mrs[i]->length)
			lkey = mrs[i]->lkey;
	if (!lkey || !mr_covers(r.addr, r.length, lkey)) {
		/* The receive buffer's MR is gone: the responder's local protection error is the
		 * requester's NAK-Remote Operational Error. */
		rwc.status = IBV_WC_LOC_PROT_ERR;
		push_wc(d->qp.recv_cq, &rwc);
		rc_error(d);
		rc_fail(q, wr->wr_id, IBV_WC_REM_OP_ERR);
		return;
	}
	if (len > r.length) {
		rwc.status = IBV_WC_LOC_LEN_ERR;
		push_wc(d->qp.recv_cq, &rwc);
		rc_error(d);
		rc_fail(q, wr->wr_id, IBV_WC_REM_INV_REQ_ERR);
		return;
	}
	memcpy((void *)(uintptr_t)r.addr, payload, len);
	rwc.status = IBV_WC_SUCCESS;
	rwc.byte_len = len; /* RC: no GRH area */
	push_wc(d->qp.recv_cq, &rwc);
	q->sq_psn = (q->sq_psn + packets) & 0xffffff;
	d->rq_psn = (d->rq_psn + packets) & 0xffffff;
	struct ibv_wc swc = { .wr_id = wr->wr_id, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND, .byte_len = len,
			      .qp_num = q->qp.qp_num };
	push_wc(q->qp.send_cq, &swc);
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fake_qp *q = container_of(qp, struct fake_qp, qp);
	pthread_mutex_lock(&lock);
	calls_post_send++;
	if (qp->qp_type == IBV_QPT_RC) {
		for (; wr; wr = wr->next) {
			wrs_post_send++;
			if (qp->state == IBV_QPS_ERR) {
				struct ibv_wc wc = { .wr_id = wr->wr_id, .status = IBV_WC_WR_FLUSH_ERR,
						     .opcode = IBV_WC_SEND, .qp_num = qp->qp_num };
				push_wc(qp->send_cq, &wc);
				continue;
			}
			if (qp->state != IBV_QPS_RTS || wr->opcode != IBV_WR_SEND || wr->num_sge != 1
			    || !(wr->send_flags & IBV_SEND_SIGNALED) || !sge_valid(wr->sg_list, "post_send")) {
				violation("post_send RC: state %d opcode %d num_sge %d flags 0x%x", qp->state, wr->opcode,
					  wr->num_sge, wr->send_flags);
				*bad = wr;
				pthread_mutex_unlock(&lock);
				return EINVAL;
			}
			rc_send(q, wr);
		}
		pthread_mutex_unlock(&lock);
		return 0;
	}
	for (; wr; wr = wr->next) {
		struct fake_ah *ah = NULL;
		wrs_post_send++;
		for (int i = 0; i < MAX_OBJ; i++)
			if (ahs[i] && &ahs[i]->ah == wr->wr.ud.ah)
				ah = ahs[i];
		if (qp->state != IBV_QPS_RTS || wr->opcode != IBV_WR_SEND || wr->num_sge != 1
		    || !(wr->send_flags & IBV_SEND_SIGNALED) || !ah || !sge_valid(wr->sg_list, "post_send")) {
			violation("post_send: state %d opcode %d num_sge %d flags 0x%x ah %p", qp->state, wr->opcode,
				  wr->num_sge, wr->send_flags, (void *)wr->wr.ud.ah);
			*bad = wr;
			pthread_mutex_unlock(&lock);
			return EINVAL;
		}
		const void *payload = (const void *)(uintptr_t)wr->sg_list[0].addr;
		uint32_t len = wr->sg_list[0].length;
		for (int i = 0; i < MAX_OBJ; i++) {
			struct fake_qp *d = qps[i];
			if (!d || d->qp.state < IBV_QPS_RTR || d->qkey != wr->wr.ud.remote_qkey)
				continue; /* a wrong Q_Key is dropped silently (IBA 10.2.4) */
			if (wr->wr.ud.remote_qpn == 0xffffff) {
				for (int m = 0; m < d->nmcast; m++)
					if (ah->attr.is_global && !memcmp(d->mgid[m], ah->attr.grh.dgid.raw, 16)
					    && d->mlid[m] == ah->attr.dlid)
						deliver(d, q, ah, payload, len);
			} else if (d->qp.qp_num == wr->wr.ud.remote_qpn && ah->attr.dlid == FAKE_LID) {
				deliver(d, q, ah, payload, len);
			}
		}
		struct ibv_wc wc = { .wr_id = wr->wr_id, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND,
				     .byte_len = len, .qp_num = qp->qp_num };
		push_wc(qp->send_cq, &wc);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---- async events ------------------------------------------------------------------------ */

int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	uint64_t v;
	pthread_mutex_lock(&lock);
	if (async_count == 0) {
		pthread_mutex_unlock(&lock);
		errno = EAGAIN;
		return -1;
	}
	memset(event, 0, sizeof(*event));
	event->event_type = async_queue[0].type;
	if (async_queue[0].element)
		event->element.qp = async_queue[0].element;
	else
		event->element.port_num = async_queue[0].port;
	memmove(&async_queue[0], &async_queue[1], sizeof(async_queue[0]) * (size_t)(--async_count));
	if (async_count == 0 && read(ctx->async_fd, &v, sizeof(v)) < 0)
		violation("async fd read failed");
	pthread_mutex_unlock(&lock);
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event) { async_acks++; }
