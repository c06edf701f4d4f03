package ipoib.verbs.loopback.agent;

import ipoib.codec.Wire;
import ipoib.codec.smp.Smp;
import java.lang.foreign.MemorySegment;

/** SMPs and PMA MADs as OpenSM and infiniband-diags build them (IBA 14.2.1, 16.1.1). */
final class Smps {
    private Smps() {
    }

    static byte[] directed(int method, int attribute, int modifier, long tid, int... path) {
        byte[] b = new byte[Smp.LENGTH];
        MemorySegment s = MemorySegment.ofArray(b);
        header(s, Smp.CLASS_DIRECTED_ROUTE, 1, method, attribute, modifier, tid);
        Wire.put8(s, 7, path.length);
        Smp.setDrSlid(s, Smp.PERMISSIVE_LID);
        Smp.setDrDlid(s, Smp.PERMISSIVE_LID);
        for (int i = 0; i < path.length; i++) {
            Smp.setInitialPath(s, i + 1, path[i]);
        }
        return b;
    }

    static byte[] lidRouted(int managementClass, int method, int attribute, int modifier, long tid) {
        byte[] b = new byte[Smp.LENGTH];
        header(MemorySegment.ofArray(b), managementClass, managementClass == 0x03 ? 2 : 1, method, attribute,
                modifier, tid);
        return b;
    }

    private static void header(MemorySegment s, int managementClass, int classVersion, int method, int attribute,
            int modifier, long tid) {
        Wire.put8(s, 0, 1);
        Wire.put8(s, 1, managementClass);
        Wire.put8(s, 2, classVersion);
        Wire.put8(s, 3, method);
        Wire.put64(s, 8, tid);
        Wire.put16(s, 16, attribute);
        Wire.put32(s, 20, modifier);
    }

    static MemorySegment data(byte[] mad) {
        return MemorySegment.ofArray(mad).asSlice(Smp.DATA);
    }
}
