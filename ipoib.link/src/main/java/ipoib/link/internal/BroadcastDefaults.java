package ipoib.link.internal;

import ipoib.api.QKey;

/** Parameters of a broadcast group this node creates (RFC 4391 §4.1, §5). */
final class BroadcastDefaults {
    private BroadcastDefaults() {}

    /** The Q_Key Linux and OpenSM use for IPoIB broadcast groups. */
    static final QKey QKEY = QKey.of(0x0b1b);
}
