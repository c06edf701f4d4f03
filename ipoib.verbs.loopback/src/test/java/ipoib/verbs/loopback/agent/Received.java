package ipoib.verbs.loopback.agent;

import java.util.ArrayList;
import java.util.List;

/** A client's inbox in tests: every MAD the plane delivered, copied. */
final class Received implements MadReceiver {
    record Mad(int dlid, int slid, int dqp, int sqp, int status, byte[] bytes) {
    }

    final List<Mad> mads = new ArrayList<>();
    /** A client whose process ended: it takes nothing. */
    boolean gone;

    @Override
    public boolean received(int dlid, int slid, int dqp, int sqp, int status, byte[] mad, int length) {
        if (gone) {
            return false;
        }
        mads.add(new Mad(dlid, slid, dqp, sqp, status, java.util.Arrays.copyOf(mad, length)));
        return true;
    }

    Mad last() {
        if (mads.isEmpty()) {
            throw new AssertionError("nothing was delivered");
        }
        return mads.get(mads.size() - 1);
    }

    Mad take() {
        if (mads.isEmpty()) {
            throw new AssertionError("nothing was delivered");
        }
        return mads.remove(0);
    }
}
