package ipoib.console.internal;

import ipoib.api.metrics.HistogramSample;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import java.util.ArrayList;
import java.util.List;

/**
 * One source's samples of a scrape, held until the source has finished so that a source that
 * fails half way (its bundle stopping, a family written two ways) is left out whole, not in part.
 */
final class SourceSamples implements MetricSink {
    private record Sample(Metric metric, long value, HistogramSample histogram, String[] labelValues) {
        void writeTo(MetricSink out) {
            if (histogram != null) {
                out.histogram(metric, histogram, labelValues);
            } else {
                out.sample(metric, value, labelValues);
            }
        }
    }

    private final List<Sample> samples = new ArrayList<>();

    @Override
    public void sample(Metric metric, long value, String... labelValues) {
        samples.add(new Sample(metric, value, null, labelValues.clone()));
    }

    @Override
    public void histogram(Metric metric, HistogramSample value, String... labelValues) {
        samples.add(new Sample(metric, 0, value, labelValues.clone()));
    }

    /** Why a source was left out of a scrape; {@code failure} is null when it did not throw. */
    @FunctionalInterface
    interface LeftOut {
        void leftOut(String why, Throwable failure);
    }

    /**
     * Writes {@code source}'s samples to {@code out}; false, and nothing written, when the source
     * failed or disagrees with a family already written.
     */
    static boolean copy(MetricsSource source, Exposition out) {
        return copy(source, out, (why, failure) -> { });
    }

    /** {@link #copy(MetricsSource, Exposition)}, telling {@code leftOut} why a source was left out. */
    static boolean copy(MetricsSource source, Exposition out, LeftOut leftOut) {
        SourceSamples held = new SourceSamples();
        try {
            source.collect(held);
            Exposition check = new Exposition(); // the source's families on their own, then with the others'
            for (Sample s : held.samples) {
                s.writeTo(check);
            }
            if (!out.accepts(check)) {
                leftOut.leftOut("it disagrees with a family already written (help, type or label names)", null);
                return false;
            }
        } catch (RuntimeException failed) {
            leftOut.leftOut("it threw " + failed, failed);
            return false;
        }
        for (Sample s : held.samples) {
            s.writeTo(out);
        }
        return true;
    }
}
