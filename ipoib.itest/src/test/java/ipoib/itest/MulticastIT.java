package ipoib.itest;

import static ipoib.itest.Testbed.EXPERIMENTAL;
import static ipoib.itest.Testbed.payload;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.QKey;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import ipoib.api.mcast.MulticastService;
import ipoib.codec.mcast.MulticastMapping;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.junit.After;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerSuite;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventConstants;
import org.osgi.service.event.EventHandler;

/**
 * IP multicast over three interfaces on three HCAs (RFC 4391 §10, §11): every branch of the
 * egress decision, the move from the all-routers group to a group created later (trap 66),
 * router mode, bounded queues, join failures and their events, and the shell commands.
 * Interface {@code c} plays the router where one is needed. Each test uses its own groups and
 * leaves what it joined. The loopback SA here answers as an SM without SendOnlyFullMember
 * support ({@code saSendOnlyFullMember=false}), so that senders join as SendOnlyNonMember and
 * every branch of §10 is taken; {@code SendOnlyJoinIT} runs the appliance's defaults, where a
 * sender's SendOnlyFullMember join creates the group.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class MulticastIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link",
            "ipoib.mcast");

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;

    private Testbed bed;
    private MulticastService multicast;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Before
    public void threeInterfaces() throws Exception {
        bed = new Testbed(context, configurationAdmin, shell);
        bed.hcas(3, "saSendOnlyFullMember", false);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.createLink("c", "loop2");
        bed.awaitUp("a", "b", "c");
        multicast = bed.multicast();
        Await.until("the multicast manager follows a, b and c", Duration.ofSeconds(10),
                () -> !multicast.counters("a").isEmpty() && !multicast.counters("b").isEmpty()
                        && !multicast.counters("c").isEmpty());
        run("fabric:clear");
        bed.stopListening();
        bed.listen();
    }

    /** The frame handler goes with the test: the next class in the shared framework finds no service of this one. */
    @After
    public void stopListening() {
        bed.stopListening();
    }

    private String run(String command) throws Exception {
        return bed.run(command);
    }

    private static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    private Mgid mgid(String group) {
        InetAddress address = ip(group);
        Mgid bcast = bed.link("a").broadcastGid();
        return address instanceof Inet4Address v4 ? MulticastMapping.ipv4(v4, bcast)
                : MulticastMapping.ipv6((Inet6Address) address, bcast);
    }

    private void join(String link, String group) throws Exception {
        GroupInfo info = multicast.joinListener(link, ip(group)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(JoinState.FULL_MEMBER, info.joinState());
    }

    private void leave(String link, String group) throws Exception {
        multicast.leaveListener(link, ip(group)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private TransmitResult send(String link, String group, String text) {
        IpoibLink l = bed.link(link);
        return multicast.send(l, ip(group), EXPERIMENTAL, payload(text));
    }

    private GroupInfo group(String link, String group) {
        Mgid m = mgid(group);
        return multicast.groups(link).stream().filter(g -> g.mgid().equals(m)).findFirst().orElse(null);
    }

    private long counter(String link, String name) {
        return multicast.counters(link).getOrDefault(name, -1L);
    }

    @Test
    public void threeInterfacesOnThreeHcasComeUpWithMtu2044AndTheBroadcastQKey() {
        for (String name : new String[] {"a", "b", "c"}) {
            IpoibLink l = bed.link(name);
            assertEquals(2044, l.mtu());
            assertEquals(QKey.of(0x0b1b), l.qkey());
            assertEquals("ff12:401b:ffff::ffff:ffff", l.broadcastGid().toString());
        }
        assertNotEquals(bed.link("a").gid(), bed.link("b").gid());
        assertNotEquals(bed.link("b").gid(), bed.link("c").gid());
        assertNotEquals(bed.link("a").port().device().name(), bed.link("c").port().device().name());
    }

    /** §10 first branch: the port is a member (here a FullMember listener): the frame goes out at once. */
    @Test
    public void aMemberSendsStraightToTheGroup() throws Exception {
        join("a", "239.1.0.1");
        join("b", "239.1.0.1");
        try {
            assertEquals(EgressDecision.SEND, multicast.egressDecision("a", ip("239.1.0.1")));
            assertEquals(TransmitResult.SENT, send("a", "239.1.0.1", "member send"));
            Testbed.Frame f = bed.await("b gets the member send", r -> r.text().equals("member send"));
            assertEquals("b", f.link());
            assertTrue(f.multicast());
            assertEquals(mgid("239.1.0.1").gid(), f.destination());
            assertTrue("a does not hear itself, c is no member",
                    bed.drainThrough("b", "a", "c").stream().noneMatch(r -> r.text().equals("member send")));
        } finally {
            leave("a", "239.1.0.1");
            leave("b", "239.1.0.1");
        }
    }

    /** §10 second branch: the group exists, the sender joins it as SendOnlyNonMember, then sends. */
    @Test
    public void aSenderJoinsAnExistingGroupAsSendOnlyNonMemberThenSends() throws Exception {
        join("b", "239.1.0.2");
        try {
            assertEquals(EgressDecision.JOIN_SEND_ONLY_THEN_SEND, multicast.egressDecision("a", ip("239.1.0.2")));
            assertEquals(TransmitResult.QUEUED, send("a", "239.1.0.2", "first"));
            assertEquals("b", bed.await("b gets the queued frame", r -> r.text().equals("first")).link());
            Await.until("a is a SendOnlyNonMember", Duration.ofSeconds(10),
                    () -> group("a", "239.1.0.2") != null
                            && group("a", "239.1.0.2").joinState() == JoinState.SEND_ONLY_NON_MEMBER);
            assertEquals(GroupOrigin.SEND_ONLY, group("a", "239.1.0.2").origin());
            assertEquals(EgressDecision.SEND, multicast.egressDecision("a", ip("239.1.0.2")));
            assertEquals(TransmitResult.SENT, send("a", "239.1.0.2", "second"));
            assertEquals("b", bed.await("b gets the direct frame", r -> r.text().equals("second")).link());
            String groups = run("fabric:groups");
            assertTrue(groups, groups.contains(bed.link("a").gid() + "  SendOnlyNonMember"));
            assertTrue("c is no member and hears nothing",
                    bed.drainThrough("a", "c").stream().noneMatch(r -> r.link().equals("c")));
        } finally {
            leave("b", "239.1.0.2");
        }
    }

    /**
     * §10 third branch and the trap: a group beyond link-local that does not exist goes to the
     * all-routers group; when a listener creates the group, trap 66 moves the traffic to it.
     */
    @Test
    public void beyondLinkLocalTrafficGoesToAllRoutersUntilTheGroupIsCreated() throws Exception {
        join("c", "224.0.0.2");
        boolean bJoined = false;
        try {
            // a learns of the all-routers group from the SA's trap 66, which reaches it after c's join completes.
            Await.until("a sends 239.1.0.3 to the all-routers group", Duration.ofSeconds(10),
                    () -> multicast.egressDecision("a", ip("239.1.0.3")) == EgressDecision.SEND_TO_ALL_ROUTERS,
                    () -> "a's decision: " + multicast.egressDecision("a", ip("239.1.0.3")));
            long viaRouters = counter("a", "tx_via_all_routers");
            send("a", "239.1.0.3", "to routers");
            Testbed.Frame f = bed.await("the router c gets it", r -> r.text().equals("to routers"));
            assertEquals("c", f.link());
            assertEquals("sent through the all-routers group", mgid("224.0.0.2").gid(), f.destination());
            // Counted once the link took the frame: c may have it before a's sending thread counts it.
            Await.until("a counts the frame sent through the all-routers group", Duration.ofSeconds(10),
                    () -> counter("a", "tx_via_all_routers") > viaRouters,
                    () -> "tx_via_all_routers " + counter("a", "tx_via_all_routers") + ", before " + viaRouters);

            long created = counter("a", "traps_created");
            join("b", "239.1.0.3");
            bJoined = true;
            Await.until("a learns from trap 66 that 239.1.0.3 exists", Duration.ofSeconds(10),
                    () -> counter("a", "traps_created") > created
                            && multicast.egressDecision("a", ip("239.1.0.3")) == EgressDecision.JOIN_SEND_ONLY_THEN_SEND);
            send("a", "239.1.0.3", "to the new group");
            f = bed.await("b gets it through the new group", r -> r.text().equals("to the new group"));
            assertEquals("b", f.link());
            assertEquals(mgid("239.1.0.3").gid(), f.destination());
            assertTrue("the router no longer gets it",
                    bed.drainThrough("a", "b", "c").stream().noneMatch(r -> r.text().equals("to the new group")));
        } finally {
            leave("c", "224.0.0.2");
            if (bJoined) {
                leave("b", "239.1.0.3");
            }
        }
    }

    @Test
    public void ipv6BeyondLinkLocalGoesToTheIpv6AllRoutersGroup() throws Exception {
        join("c", "ff02::2");
        try {
            Await.until("a sends ff05::1:3 to the IPv6 all-routers group", Duration.ofSeconds(10),
                    () -> multicast.egressDecision("a", ip("ff05::1:3")) == EgressDecision.SEND_TO_ALL_ROUTERS,
                    () -> "a's decision: " + multicast.egressDecision("a", ip("ff05::1:3")));
            assertEquals("ff02::1:3 is link-local: no routers for it", EgressDecision.DROP,
                    multicast.egressDecision("a", ip("ff02::1:3")));
            send("a", "ff05::1:3", "v6 to routers");
            Testbed.Frame f = bed.await("the router c gets it", r -> r.text().equals("v6 to routers"));
            assertEquals("c", f.link());
            assertEquals("ff12:601b:ffff::2", f.destination().toString());
        } finally {
            leave("c", "ff02::2");
        }
    }

    /** §10 last branch: no group and (link-local, or no all-routers group): dropped and counted. */
    @Test
    public void framesWithoutAGroupOrRouterAreDroppedAndCounted() throws Exception {
        Await.until("no all-routers group", Duration.ofSeconds(10),
                () -> multicast.egressDecision("a", ip("239.1.0.4")) == EgressDecision.DROP);
        assertEquals(EgressDecision.DROP, multicast.egressDecision("a", ip("224.0.0.99")));
        long dropped = counter("a", "tx_dropped_no_route");
        assertEquals("the group's absence is cached", TransmitResult.DROPPED_NO_ROUTE,
                send("a", "239.1.0.4", "nowhere"));
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, send("a", "224.0.0.99", "nowhere either"));
        assertEquals(dropped + 2, counter("a", "tx_dropped_no_route"));
        long viaLookup = counter("a", "tx_dropped_no_route");
        // A group nobody asked about yet: the frame waits for the SA's answer, then is dropped.
        TransmitResult first = send("a", "224.0.0.98", "asked first");
        assertTrue(first.toString(), first == TransmitResult.QUEUED || first == TransmitResult.DROPPED_NO_ROUTE);
        Await.until("the drop after the lookup is counted", Duration.ofSeconds(10),
                () -> counter("a", "tx_dropped_no_route") == viaLookup + 1);
        // The same for IPv6 (a Router Solicitation to ff02::2 where no router exists is such a frame
        // when the SA cannot create the group with a SendOnlyFullMember join).
        TransmitResult v6 = send("a", "ff02::1:77", "to an absent IPv6 group");
        assertTrue(v6.toString(), v6 == TransmitResult.QUEUED || v6 == TransmitResult.DROPPED_NO_ROUTE);
        Await.until("the IPv6 drop after the lookup is counted", Duration.ofSeconds(10),
                () -> counter("a", "tx_dropped_no_route") == viaLookup + 2);
        String shown = run("ipoib:mcast a");
        for (String group : new String[] {"224.0.0.98", "ff02::1:77"}) {
            assertTrue(group + " shown ABSENT:\n" + shown, java.util.regex.Pattern.compile(
                    java.util.regex.Pattern.quote(mgid(group).toString()) + "\\s+" + java.util.regex.Pattern.quote(group)
                            + "\\s.*ABSENT").matcher(shown).find());
        }
        List<Testbed.Frame> heard = new ArrayList<>(bed.drainThrough("b", "a", "c"));
        heard.addAll(bed.drainThrough("a", "b"));
        assertTrue(heard.toString(), heard.isEmpty());
    }

    /** §11: router mode makes c a NonMember of groups created later, and of those it knew. */
    @Test
    public void routerModeReceivesGroupsItNeverJoinedAsAListener() throws Exception {
        join("b", "239.1.0.5");
        multicast.setRouterMode("c", true);
        try {
            assertTrue(multicast.isRouterMode("c"));
            join("b", "239.1.0.6");
            join("b", "ff05::6");
            Await.until("c joined the new groups as NonMember", Duration.ofSeconds(10),
                    () -> group("c", "239.1.0.6") != null && group("c", "239.1.0.6").joinState() == JoinState.NON_MEMBER
                            && group("c", "ff05::6") != null
                            && group("c", "ff05::6").joinState() == JoinState.NON_MEMBER,
                    () -> multicast.groups("c").toString());
            assertEquals(GroupOrigin.ROUTER, group("c", "239.1.0.6").origin());
            assertEquals(0, group("c", "239.1.0.6").listeners());
            send("a", "239.1.0.6", "routed v4");
            send("a", "ff05::6", "routed v6");
            List<String> routed = List.of("routed v4", "routed v6");
            for (String text : routed) {
                bed.await("c gets " + text, r -> r.link().equals("c") && r.text().equals(text));
            }
            Await.until("c follows the group that existed before router mode", Duration.ofSeconds(20),
                    () -> group("c", "239.1.0.5") != null && group("c", "239.1.0.5").joinState() != null,
                    () -> multicast.groups("c").toString() + "\n" + run2("fabric:groups"));

            multicast.setRouterMode("c", false);
            Await.until("c left the NonMember groups", Duration.ofSeconds(10),
                    () -> group("c", "239.1.0.6") == null || group("c", "239.1.0.6").joinState() == null);
            bed.clearReceived();
            send("a", "239.1.0.6", "not routed");
            bed.await("b still gets it", r -> r.link().equals("b") && r.text().equals("not routed"));
            assertTrue(bed.drainThrough("a", "c").stream().noneMatch(r -> r.link().equals("c")));
        } finally {
            multicast.setRouterMode("c", false);
            leave("b", "239.1.0.5");
            leave("b", "239.1.0.6");
            leave("b", "ff05::6");
        }
    }

    private String run2(String command) {
        try {
            return run(command);
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** Frames waiting for a join sit in a bounded queue and go out in order. */
    @Test
    public void framesWaitingForAJoinAreBoundedAndSentInOrder() throws Exception {
        join("b", "239.1.0.7");
        try {
            run("fabric:fault sa-delay 300");
            long full = counter("a", "tx_dropped_queue_full");
            int queued = 0;
            for (int i = 0; i < 80; i++) {
                TransmitResult r = send("a", "239.1.0.7", "seq " + i);
                if (r == TransmitResult.QUEUED) {
                    queued++;
                } else {
                    assertEquals(TransmitResult.DROPPED_QUEUE_FULL, r);
                }
            }
            assertEquals("the queue holds 64 frames (Linux IPoIB's bound)", 64, queued);
            assertEquals(full + 16, counter("a", "tx_dropped_queue_full"));
            for (int i = 0; i < 64; i++) {
                String text = "seq " + i;
                Testbed.Frame f = bed.await(text, r -> r.link().equals("b"));
                assertEquals("in order", text, f.text());
            }
        } finally {
            run("fabric:clear");
            leave("b", "239.1.0.7");
        }
    }

    /** §12: failures are logged and posted; queued frames are freed and counted; listener joins retry. */
    @Test
    public void joinFailuresArePostedFramesFreedAndListenerJoinsRetried() throws Exception {
        LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(EventConstants.EVENT_TOPIC, "ipoib/group/*");
        ServiceRegistration<EventHandler> reg = context.registerService(EventHandler.class, events::add, props);
        try {
            run("fabric:fault sa-error 100");
            run("fabric:fault sa-status 0x0100");
            long freed = counter("a", "tx_dropped_join_failed");
            assertEquals(TransmitResult.QUEUED, send("a", "239.1.0.8", "lost"));
            Await.until("the frame is freed and counted", Duration.ofSeconds(10),
                    () -> counter("a", "tx_dropped_join_failed") == freed + 1);

            var joining = multicast.joinListener("b", ip("239.1.0.9")).toCompletableFuture();
            Event failed = awaitEvent(events, IpoibEvents.GROUP_JOIN_FAILED, "b");
            assertEquals(mgid("239.1.0.9").toString(), failed.getProperty(IpoibEvents.MGID));
            assertTrue(String.valueOf(failed.getProperty(IpoibEvents.REASON)),
                    String.valueOf(failed.getProperty(IpoibEvents.REASON)).contains("no resources"));
            assertFalse(joining.isDone());
            // The backoff itself (1, 2, 4, 8, 16 s) is LinkGroupsTest's, on a manual clock.
            String[] shown = new String[1];
            Await.until("ipoib:mcast shows the listener's join waiting for its retry", Duration.ofSeconds(10),
                    () -> {
                        try {
                            shown[0] = run("ipoib:mcast b");
                        } catch (Exception e) {
                            throw new AssertionError("ipoib:mcast b failed", e);
                        }
                        return shown[0].contains("listeners 1") && shown[0].contains("RETRY in");
                    },
                    () -> shown[0]);
            run("fabric:clear");
            GroupInfo joined = joining.get(20, TimeUnit.SECONDS);
            assertEquals(JoinState.FULL_MEMBER, joined.joinState());
            Event ok = awaitEvent(events, IpoibEvents.GROUP_JOINED, "b");
            assertEquals("FullMember", ok.getProperty(IpoibEvents.JOIN_STATE));
            leave("b", "239.1.0.9");
            Event left = awaitEvent(events, IpoibEvents.GROUP_LEFT, "b");
            assertEquals(mgid("239.1.0.9").toString(), left.getProperty(IpoibEvents.MGID));
        } finally {
            run("fabric:clear");
            reg.unregister();
        }
    }

    /**
     * A listener belongs to the listener, not to a registration of the link's
     * service. A restart of the link bundle takes every link service away and registers new ones;
     * the listener's group is joined again on the new service of its interface.
     */
    @Test
    public void aListenerSurvivesARestartOfTheLinkBundle() throws Exception {
        join("a", "239.7.7.7");
        org.osgi.framework.Bundle linkBundle = java.util.Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.link".equals(b.getSymbolicName())).findFirst().orElseThrow();
        IpoibLink before = bed.link("a");
        linkBundle.stop();
        linkBundle.start();
        bed.awaitUp("a", "b", "c");
        assertTrue("a new service of a", bed.link("a") != before);
        try {
            Await.until("the listener's group joined on the new service", Duration.ofSeconds(20),
                    () -> group("a", "239.7.7.7"), g -> g.joinState() == JoinState.FULL_MEMBER);
            assertEquals(1, group("a", "239.7.7.7").listeners());
            assertEquals(GroupOrigin.LISTENER, group("a", "239.7.7.7").origin());
        } finally {
            leave("a", "239.7.7.7");
        }
        GroupInfo left = group("a", "239.7.7.7");
        assertTrue(String.valueOf(left), left == null || left.listeners() == 0 && left.joinState() == null);
    }

    private static Event awaitEvent(LinkedBlockingQueue<Event> events, String topic, String link)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Event e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null && e.getTopic().equals(topic) && link.equals(e.getProperty(IpoibEvents.LINK))) {
                return e;
            }
        }
        throw new AssertionError("no event " + topic + " of " + link);
    }

    @Test
    public void shellCommandsJoinListLeaveAndRoute() throws Exception {
        String joined = run("ipoib:join a 239.1.0.10");
        assertTrue(joined, joined.contains("joined 239.1.0.10 on a") && joined.contains(mgid("239.1.0.10").toString()));
        String list = run("ipoib:mcast a");
        assertTrue(list, list.contains("a: router mode off"));
        assertTrue(list, list.contains(mgid("239.1.0.10").toString()) && list.contains("FullMember")
                && list.contains("LISTENER") && list.contains("listeners 1"));
        assertTrue(list, list.contains("ff12:401b:ffff::ffff:ffff") && list.contains("BROADCAST"));
        assertTrue(run("ipoib:router c on"), run("ipoib:router c").contains("router mode on"));
        assertTrue(run("ipoib:router c off").contains("router mode off"));
        assertTrue(run("ipoib:leave a 239.1.0.10").contains("left 239.1.0.10 on a"));
        assertTrue(run("ipoib:mcast").contains("c: router mode off"));

        for (String[] wrong : new String[][] {
                {"ipoib:join a", "an interface and an IP multicast group are required"},
                {"ipoib:join a 10.0.0.1", "10.0.0.1 is not an IP multicast group"},
                {"ipoib:join a www.example.com", "is not an IP address literal"},
                {"ipoib:join nosuch 239.1.1.1", "no interface 'nosuch'"},
                {"ipoib:leave a 239.1.0.11", "no listener of 239.1.0.11 on a"},
                {"ipoib:router a maybe", "'maybe' is neither on nor off"},
                {"ipoib:router", "an interface is required"},
                {"ipoib:mcast a b", "expected at most one interface name"},
                {"ipoib:mcast nosuch", "no interface 'nosuch'"}}) {
            String message = bed.fail(wrong[0]);
            assertTrue(wrong[0] + ": " + message, message.contains(wrong[1]));
            assertTrue(wrong[0] + ": " + message, message.contains("\nusage: ipoib:"));
        }
        String help = run("help ipoib:mcast");
        assertTrue(help, help.contains("list the multicast groups"));
    }
}
