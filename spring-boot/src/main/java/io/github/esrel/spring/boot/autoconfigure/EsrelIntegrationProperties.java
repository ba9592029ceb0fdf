package io.github.esrel.spring.boot.autoconfigure;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code esrel.integration.*}: Spring Integration's {@code LockRegistry} on the {@code TreeLocks} bean (with
 * {@code esrel-spring-integration} on Boot 4, {@code esrel-spring-integration6} on Boot 3.5). The defaults are the
 * registry's own.
 */
@ConfigurationProperties("esrel.integration")
public class EsrelIntegrationProperties extends LockAdapterProperties {

    /** The lease of a held lock, renewed in the background every third of it. */
    private Duration ttl = Duration.ofSeconds(60);

    /** Whether held locks renew their lease in the background. */
    private boolean autoRenew = true;

    /** How many locks {@code obtain} keeps (least recently used first out). */
    private int cacheCapacity = 256;

    /** Created by Spring: enabled, prefix {@code /spring-integration/locks}. */
    public EsrelIntegrationProperties() {
        super("/spring-integration/locks");
    }

    /**
     * The lease of a held lock.
     *
     * @return the lease, 60 s by default
     */
    public Duration getTtl() {
        return ttl;
    }

    /**
     * The lease of a held lock.
     *
     * @param ttl at least 1 ms
     */
    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    /**
     * Whether held locks renew their lease in the background.
     *
     * @return true by default
     */
    public boolean isAutoRenew() {
        return autoRenew;
    }

    /**
     * Whether held locks renew their lease in the background.
     *
     * @param autoRenew false to renew only through {@code renewLock}
     */
    public void setAutoRenew(boolean autoRenew) {
        this.autoRenew = autoRenew;
    }

    /**
     * How many locks {@code obtain} keeps.
     *
     * @return 256 by default
     */
    public int getCacheCapacity() {
        return cacheCapacity;
    }

    /**
     * How many locks {@code obtain} keeps.
     *
     * @param cacheCapacity at least 1
     */
    public void setCacheCapacity(int cacheCapacity) {
        this.cacheCapacity = cacheCapacity;
    }
}
