package ipoib.api;

/** Field checks shared by the subnet administration records. */
final class Records {
    private Records() {}

    static void requireNonNull(String record, Object... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] == null) {
                throw new IllegalArgumentException(record + "." + namesAndValues[i] + " must not be null");
            }
        }
    }

    static void checkCommon(int flowLabel, int serviceLevel, int packetLifetime, int hopLimit, int trafficClass) {
        Values.checkRange("flow label", flowLabel, 0, 0xF_FFFF);
        Values.checkRange("service level", serviceLevel, 0, 15);
        Values.checkRange("packet lifetime", packetLifetime, 0, 63);
        Values.checkRange("hop limit", hopLimit, 0, 255);
        Values.checkRange("traffic class", trafficClass, 0, 255);
    }
}
