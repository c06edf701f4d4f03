package ipoib.satest;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.sa.SubnetAdministrator;

/** One end node of a test subnet: its port and the SA client running on it. */
public interface SaHost {
    /** A name for messages (the node description, {@code loop0}, ...). */
    String name();

    /** The port GID (GID index 0). */
    Gid portGid();

    /** The port's LID. */
    Lid lid();

    /** The SA client of the port. */
    SubnetAdministrator sa();
}
