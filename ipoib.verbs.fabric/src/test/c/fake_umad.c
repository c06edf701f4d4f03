/*
 * A stand-in for libibumad.so.3 for the connected-mode probe: one port ("fake0" port 1) whose
 * management classes can be held by a simulated kernel ib_cm. With ib_cm loaded, registering an
 * agent for the CM class (0x07) with the Send method fails with -EINVAL, as the kernel's
 * ib_register_mad_agent does when method_in_use finds the method taken (drivers/infiniband/core/
 * mad.c) and user_mad.c's ib_umad_reg_agent passes on; ib_cm registers class 0x07 version 2
 * method Send on every port (cm.c, cm_add_one). The other functions exist so that the binding
 * loads; they are not used by the probe and fail.
 *
 * Test support only: built by ConnectedModeSupportTest with gcc -shared.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <infiniband/umad.h>

static int kernel_cm, open_ports, live_agents, last_class = -1, last_version = -1;
static uint64_t last_mask;

void fake_umad_kernel_cm(int loaded) { kernel_cm = loaded; }

/* "open", "agents", "class", "version", "mask" */
long long fake_umad(const char *what)
{
	if (!strcmp(what, "open")) return open_ports;
	if (!strcmp(what, "agents")) return live_agents;
	if (!strcmp(what, "class")) return last_class;
	if (!strcmp(what, "version")) return last_version;
	if (!strcmp(what, "mask")) return (long long)last_mask;
	return -1;
}

void fake_umad_reset(void)
{
	kernel_cm = open_ports = live_agents = 0;
	last_class = last_version = -1;
	last_mask = 0;
}

int umad_init(void) { return 0; }
int umad_done(void) { return 0; }

int umad_open_port(const char *ca_name, int portnum)
{
	if (!ca_name || strcmp(ca_name, "fake0") || portnum != 1)
		return -ENODEV;
	open_ports++;
	return 100 + open_ports;
}

int umad_close_port(int portid)
{
	open_ports--;
	return 0;
}

int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version, long method_mask[16 / sizeof(long)])
{
	last_class = mgmt_class;
	last_version = mgmt_version;
	last_mask = (uint64_t)method_mask[0];
	if (kernel_cm && mgmt_class == 0x07 && (method_mask[0] & (1L << 0x03)))
		return -EINVAL;
	live_agents++;
	return 5;
}

int umad_unregister(int portid, int agentid)
{
	live_agents--;
	return 0;
}

int umad_get_cas_names(char cas[][UMAD_CA_NAME_LEN], int max) { return -ENOSYS; }
int umad_get_port(const char *ca_name, int portnum, umad_port_t *port) { return -ENOSYS; }
int umad_release_port(umad_port_t *port) { return 0; }
size_t umad_size(void) { return 0; }
int umad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey) { return -ENOSYS; }
int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries) { return -ENOSYS; }
int umad_recv(int portid, void *umad, int *length, int timeout_ms) { return -ENOSYS; }
