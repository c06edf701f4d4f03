package ipoib.itest;

import java.util.List;
import java.util.Random;

/**
 * One kind of trouble the soak injects, through the user's Gogo commands: a data-path fault
 * held for a while, an SA fault held while neighbour entries must be resolved again, a port
 * reset or down/up, a LID change, an SM change, or a bundle restart.
 */
enum SoakEvent {
    LOSS("fabric:fault loss %d", 20, 60),
    DUPLICATE("fabric:fault duplicate %d", 20, 80),
    REORDER("fabric:fault reorder %d", 20, 80),
    CORRUPT("fabric:fault corrupt %d", 10, 50),
    DELAY("fabric:fault delay %d", 20, 400),
    SA_DROP("fabric:fault sa-drop %d", 30, 100),
    SA_ERROR("fabric:fault sa-error %d", 30, 100),
    SA_DELAY("fabric:fault sa-delay %d", 100, 2000),
    TRAP_LOSS("fabric:fault trap-loss %d", 50, 100),
    PORT_RESET("fabric:reset %s", 0, 0),
    PORT_DOWN_UP("fabric:down %s", 0, 0),
    LID_CHANGE("fabric:lid %s %d", 0, 0),
    SM_CHANGE("fabric:smchange", 0, 0),
    BUNDLE_RESTART("", 0, 0);

    /** The bundles a user may restart (felix:stop, felix:start); their configurations stay. */
    static final List<String> RESTARTABLE =
            List.of("ipoib.link", "ipoib.arp", "ipoib.nd", "ipoib.host", "ipoib.mcast", "ipoib.verbs.loopback");

    final String command;
    final int min;
    final int max;

    SoakEvent(String command, int min, int max) {
        this.command = command;
        this.min = min;
        this.max = max;
    }

    /** Whether it is a fault held for a while and then cleared (the others happen at once). */
    boolean held() {
        return ordinal() <= TRAP_LOSS.ordinal() || this == PORT_DOWN_UP;
    }

    boolean saFault() {
        return this == SA_DROP || this == SA_ERROR || this == SA_DELAY || this == TRAP_LOSS;
    }

    /** The fault's value (percent or milliseconds) drawn from its range. */
    int value(Random random) {
        return min + random.nextInt(max - min + 1);
    }
}
