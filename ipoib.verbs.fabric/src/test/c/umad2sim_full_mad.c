/*
 * Test fixture: whole 256-octet MADs out of libumad2sim's receive path.
 *
 * ibsim 0.10's umad2sim receives each simulator packet into a buffer of sizeof(struct
 * sim_request), 288 octets (umad2sim/umad2sim.c:489), and umad2sim_read clamps the MAD it
 * copies behind the 64-octet struct ib_user_mad to that size less umad_size(): 224 of the 256
 * octets (umad2sim.c:849-851), while reporting the full length (umad2sim.c:839,853), so that
 * read() hands the reader 32 octets of whatever follows the buffer (umad2sim.c:1300). ibsim
 * 0.12 is the same. A MAD whose last 32 octets matter (an RMPP segment's attribute data) thus
 * arrives damaged.
 *
 * Built twice from this file and preloaded on both sides of libumad2sim:
 *   LD_PRELOAD=umad2sim_full_mad.so:libumad2sim.so:umad2sim_full_mad_socket.so
 * The socket side (-DSOCKET_SIDE) is what umad2sim's dlsym(RTLD_NEXT, "read")
 * (umad2sim.c:1145) finds: it sees each whole packet as umad2sim's receiver thread reads it
 * from the simulator (umad2sim.c:806) and keeps its MAD. The reader side wraps read() ahead of
 * umad2sim: when umad2sim hands over a MAD, the kept copy of that MAD (the same first 224
 * octets, among the newest 256 kept) supplies the last 32. Nothing else is changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define MAD_SIZE 256
#define DELIVERED 224      /* what umad2sim_read copies: 288 - umad_size() */
#define UMAD_HEADER 64     /* sizeof(struct ib_user_mad) */

/* include/ibsim.h:64-72 */
struct sim_request {
    uint32_t dlid, slid, dqp, sqp, status;
    uint64_t length;
    char mad[MAD_SIZE];
};

void umad2sim_full_mad_keep(const char *mad);

#ifdef SOCKET_SIDE

ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*next)(int, void *, size_t);
    if (!next)
        next = dlsym(RTLD_NEXT, "read");
    ssize_t n = next(fd, buf, count);
    if (count == sizeof(struct sim_request) && n == (ssize_t)count)
        umad2sim_full_mad_keep(((struct sim_request *)buf)->mad);
    return n;
}

#else

#define KEPT 256
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char kept[KEPT][MAD_SIZE];
static unsigned next_slot;

void umad2sim_full_mad_keep(const char *mad)
{
    pthread_mutex_lock(&lock);
    memcpy(kept[next_slot++ % KEPT], mad, MAD_SIZE);
    pthread_mutex_unlock(&lock);
}

ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*next)(int, void *, size_t);
    if (!next)
        next = dlsym(RTLD_NEXT, "read");
    ssize_t n = next(fd, buf, count);
    /* umad2sim's descriptors are 1024..2047 (umad2sim.c:1275-1277) */
    if (fd >= 1024 && fd < 2048 && n == UMAD_HEADER + MAD_SIZE) {
        char *mad = (char *)buf + UMAD_HEADER;
        pthread_mutex_lock(&lock);
        for (unsigned i = 1; i <= KEPT; i++) { /* the newest match: a repeated MAD is the same */
            char *k = kept[(next_slot - i) % KEPT];
            if (!memcmp(k, mad, DELIVERED)) {
                memcpy(mad + DELIVERED, k + DELIVERED, MAD_SIZE - DELIVERED);
                break;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return n;
}

#endif
