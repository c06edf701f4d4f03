package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.verbs.fabric.ffi.Consts;
import org.junit.jupiter.api.Test;

/** Translations of libibverbs enums into the SPI's (the enum values are checked by LayoutTest). */
class MappingTest {

    @Test
    void asyncEventsBecomePortEvents() {
        assertEquals(PortEvent.Type.PORT_ACTIVE, FabricDevice.portEventType(Consts.IBV_EVENT_PORT_ACTIVE));
        assertEquals(PortEvent.Type.PORT_ERROR, FabricDevice.portEventType(Consts.IBV_EVENT_PORT_ERR));
        assertEquals(PortEvent.Type.LID_CHANGE, FabricDevice.portEventType(Consts.IBV_EVENT_LID_CHANGE));
        assertEquals(PortEvent.Type.PKEY_CHANGE, FabricDevice.portEventType(Consts.IBV_EVENT_PKEY_CHANGE));
        assertEquals(PortEvent.Type.SM_CHANGE, FabricDevice.portEventType(Consts.IBV_EVENT_SM_CHANGE));
        assertEquals(PortEvent.Type.CLIENT_REREGISTER, FabricDevice.portEventType(Consts.IBV_EVENT_CLIENT_REREGISTER));
        assertEquals(PortEvent.Type.GID_CHANGE, FabricDevice.portEventType(Consts.IBV_EVENT_GID_CHANGE));
        assertEquals(PortEvent.Type.DEVICE_FATAL, FabricDevice.portEventType(Consts.IBV_EVENT_DEVICE_FATAL));
        assertNull(FabricDevice.portEventType(Consts.IBV_EVENT_QP_FATAL));
        assertNull(FabricDevice.portEventType(Consts.IBV_EVENT_CQ_ERR));
    }

    @Test
    void portStatesMtusAndRates() {
        assertEquals(PortState.DOWN, FabricPort.state(Consts.IBV_PORT_NOP));
        assertEquals(PortState.DOWN, FabricPort.state(Consts.IBV_PORT_DOWN));
        assertEquals(PortState.INIT, FabricPort.state(Consts.IBV_PORT_INIT));
        assertEquals(PortState.ARMED, FabricPort.state(Consts.IBV_PORT_ARMED));
        assertEquals(PortState.ACTIVE, FabricPort.state(Consts.IBV_PORT_ACTIVE));
        assertEquals(PortState.ACTIVE, FabricPort.state(Consts.IBV_PORT_ACTIVE_DEFER));
        assertEquals(IbMtu.MTU_256, FabricPort.mtu(1));
        assertEquals(IbMtu.MTU_2048, FabricPort.mtu(4));
        assertEquals(IbMtu.MTU_4096, FabricPort.mtu(5));
        // width codes 1 (1x), 2 (4x), 4 (8x), 8 (12x), 16 (2x); speed 1 SDR .. 128 NDR
        assertEquals(Rate.RATE_2_5_GBPS, FabricPort.rate(1, 1));
        assertEquals(Rate.RATE_10_GBPS, FabricPort.rate(2, 1));
        assertEquals(Rate.RATE_20_GBPS, FabricPort.rate(2, 2));
        assertEquals(Rate.RATE_40_GBPS, FabricPort.rate(2, 4));
        assertEquals(Rate.RATE_40_GBPS, FabricPort.rate(2, 8), "FDR10 4x");
        assertEquals(Rate.RATE_56_GBPS, FabricPort.rate(2, 16), "FDR 4x");
        assertEquals(Rate.RATE_100_GBPS, FabricPort.rate(2, 32), "EDR 4x");
        assertEquals(Rate.RATE_200_GBPS, FabricPort.rate(2, 64), "HDR 4x");
        assertEquals(Rate.RATE_300_GBPS, FabricPort.rate(8, 32), "EDR 12x");
        assertEquals(Rate.RATE_300_GBPS, FabricPort.rate(2, 128), "NDR 4x: no IBA code above 300 in the API");
        assertEquals(Rate.RATE_120_GBPS, FabricPort.rate(8, 4), "QDR 12x");
        assertEquals(Rate.RATE_2_5_GBPS, FabricPort.rate(0, 0), "unknown");
    }

    @Test
    void completionStatuses() {
        assertEquals(CompletionStatus.SUCCESS, FabricCompletionQueue.status(Consts.IBV_WC_SUCCESS));
        assertEquals(CompletionStatus.LOCAL_LENGTH_ERROR, FabricCompletionQueue.status(Consts.IBV_WC_LOC_LEN_ERR));
        assertEquals(CompletionStatus.LOCAL_QP_OPERATION_ERROR,
                FabricCompletionQueue.status(Consts.IBV_WC_LOC_QP_OP_ERR));
        assertEquals(CompletionStatus.LOCAL_PROTECTION_ERROR, FabricCompletionQueue.status(Consts.IBV_WC_LOC_PROT_ERR));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR,
                FabricCompletionQueue.status(Consts.IBV_WC_WR_FLUSH_ERR));
        // RC errors, numbered as verbs.h's enum ibv_wc_status (LayoutTest checks the constants against it)
        assertEquals(CompletionStatus.REMOTE_INVALID_REQUEST_ERROR, FabricCompletionQueue.status(9));
        assertEquals(CompletionStatus.REMOTE_ACCESS_ERROR, FabricCompletionQueue.status(10));
        assertEquals(CompletionStatus.REMOTE_OPERATION_ERROR, FabricCompletionQueue.status(11));
        assertEquals(CompletionStatus.RETRY_EXCEEDED, FabricCompletionQueue.status(12));
        assertEquals(CompletionStatus.RNR_RETRY_EXCEEDED, FabricCompletionQueue.status(13));
        assertEquals(CompletionStatus.GENERAL_ERROR, FabricCompletionQueue.status(21)); // IBV_WC_GENERAL_ERR
    }
}
