package ipoib.verbs.loopback.agent;

/** The SwitchInfo fields of a switch that are state rather than capability (IBA 14.2.5.4). */
final class SwitchState {
    /** PortStateChange: set when a port's link goes down or comes up, cleared by the SM writing 1. */
    boolean portStateChange = true;
    /** LifeTimeValue as the SM set it. */
    int lifeTime;
    /** DefaultMulticastPrimaryPort and DefaultMulticastNotPrimaryPort as the SM set them. */
    int defaultMulticastPrimaryPort;
    int defaultMulticastNotPrimaryPort;
    /** MulticastFDBTop as the SM set it (0xBFFF: none, the top is not used). */
    int multicastFdbTop = 0xBFFF;
}
