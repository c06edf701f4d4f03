package ipoib.neighbour;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.runtime.ManualControlLoop;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The resolvers' timer on a manual control loop: ticks at its period, a new period from now on, none after close. */
class EngineTimerTest {
    final ManualControlLoop loop = new ManualControlLoop();
    final AtomicInteger ticks = new AtomicInteger();

    @Test
    void ticksEveryPeriod() {
        EngineTimer timer = new EngineTimer(loop, 100, ticks::incrementAndGet);
        loop.advance(99, TimeUnit.MILLISECONDS);
        assertEquals(0, ticks.get());
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(1, ticks.get());
        loop.advance(1_000, TimeUnit.MILLISECONDS);
        assertEquals(11, ticks.get());
        timer.close();
    }

    @Test
    void aNewPeriodAppliesFromNowAndTheSamePeriodChangesNothing() {
        EngineTimer timer = new EngineTimer(loop, 100, ticks::incrementAndGet);
        loop.advance(150, TimeUnit.MILLISECONDS); // one tick at 100
        timer.period(100);
        loop.advance(50, TimeUnit.MILLISECONDS);
        assertEquals(2, ticks.get(), "the same period: still ticking at 200");
        timer.period(30);
        assertEquals(1, loop.scheduled(), "the old schedule is cancelled, one timer waits");
        loop.advance(29, TimeUnit.MILLISECONDS);
        assertEquals(2, ticks.get());
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(3, ticks.get(), "30 ms after the change");
        loop.advance(90, TimeUnit.MILLISECONDS);
        assertEquals(6, ticks.get());
        timer.close();
    }

    @Test
    void closeStopsIt() {
        EngineTimer timer = new EngineTimer(loop, 100, ticks::incrementAndGet);
        loop.advance(100, TimeUnit.MILLISECONDS);
        timer.close();
        assertEquals(0, loop.scheduled());
        loop.advance(1_000, TimeUnit.MILLISECONDS);
        assertEquals(1, ticks.get());
        timer.period(10);
        assertEquals(0, loop.scheduled(), "a closed timer is not started again by a new period");
    }
}
