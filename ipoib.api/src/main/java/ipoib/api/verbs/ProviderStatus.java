package ipoib.api.verbs;

/**
 * Whether a provider can be used.
 *
 * @param available true when devices can be opened
 * @param reason a human-readable reason, e.g. {@code "no RDMA devices: ibv_get_device_list failed, errno 38 (ENOSYS)"};
 *               a short summary when available
 */
public record ProviderStatus(boolean available, String reason) {

    public ProviderStatus {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("provider status needs a reason");
        }
    }

    public static ProviderStatus available(String summary) {
        return new ProviderStatus(true, summary);
    }

    public static ProviderStatus unavailable(String reason) {
        return new ProviderStatus(false, reason);
    }
}
