package ipoib.api.verbs;

/** Logical port states (IBA 7.2). Only ACTIVE ports carry data. */
public enum PortState {
    DOWN, INIT, ARMED, ACTIVE
}
