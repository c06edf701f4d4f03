package ipoib.codec.cm;

import ipoib.api.Gid;

/**
 * One connection's set-up and tear-down as the Linux IPoIB driver runs it: the REQ values are
 * those of {@code ipoib_cm_send_req} (drivers/infiniband/ulp/ipoib/ipoib_cm.c: responder
 * resources 4, initiator depth 0, CM response timeouts 20, retry and RNR retry 0, 15 CM
 * retries), the REP those of {@code ipoib_cm_send_rep}.
 */
final class CmMessages {
    private CmMessages() {}

    static final Gid ACTIVE = Gid.parse("fe80::2:c903:0:1");
    static final Gid PASSIVE = Gid.parse("fe80::2:c903:0:2");
    static final int ACTIVE_UD_QPN = 0x000048;
    static final int PASSIVE_UD_QPN = 0x000049;
    static final int ACTIVE_RC_QPN = 0x0000a1;
    static final int PASSIVE_RC_QPN = 0x0000b7;
    static final int ACTIVE_COMM_ID = 0x1234abcd;
    static final int PASSIVE_COMM_ID = 0x0badf00d;
    /** IPOIB_CM_BUF_SIZE of a 64 KiB connected-mode MTU (IPOIB_CM_MTU 65520 + the 4-octet header + padding). */
    static final int RECEIVE_MTU = 65524;

    static CmPath primary() {
        return new CmPath(0x0012, 0x0034, ACTIVE, PASSIVE, 0x12345, 3, 0x20, 0xff, 5, true, 18);
    }

    static CmReq req() {
        return new CmReq(ACTIVE_COMM_ID, IpoibCm.serviceId(PASSIVE_UD_QPN), 0x0002c90300000001L, 0, ACTIVE_RC_QPN, 4, 0,
                0, 0, 20, CmReq.RC, false, 0x00abcdef, 20, 0, 0xffff, 4, false, 0, 15, true, 0, primary(), null, false,
                IpoibCm.privateData(ACTIVE_UD_QPN, RECEIVE_MTU));
    }

    static CmRep rep() {
        return new CmRep(PASSIVE_COMM_ID, ACTIVE_COMM_ID, 0, PASSIVE_RC_QPN, 0, 0x00123456, 0, 4, 15, 0, false, 0, true,
                0x0002c90300000002L, IpoibCm.privateData(PASSIVE_UD_QPN, RECEIVE_MTU));
    }

    static CmRtu rtu() {
        return new CmRtu(ACTIVE_COMM_ID, PASSIVE_COMM_ID, CmPrivateData.empty());
    }

    static CmDreq dreq() {
        return new CmDreq(ACTIVE_COMM_ID, PASSIVE_COMM_ID, PASSIVE_RC_QPN, CmPrivateData.empty());
    }

    static CmDrep drep() {
        return new CmDrep(PASSIVE_COMM_ID, ACTIVE_COMM_ID, CmPrivateData.empty());
    }

    static CmRej rej() {
        return new CmRej(PASSIVE_COMM_ID, ACTIVE_COMM_ID, CmRej.REJECTED_REQ, CmRej.INVALID_SERVICE_ID, new byte[0],
                CmPrivateData.of((byte) 1, (byte) 2));
    }

    static CmMra mra() {
        return new CmMra(PASSIVE_COMM_ID, ACTIVE_COMM_ID, 0, 21, CmPrivateData.empty());
    }
}
