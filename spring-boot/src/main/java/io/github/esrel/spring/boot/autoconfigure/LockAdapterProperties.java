package io.github.esrel.spring.boot.autoconfigure;

/**
 * What the starter's lock adapters share (ShedLock's provider, {@code esrel.shedlock.*}; Spring Integration's registry,
 * {@code esrel.integration.*}): whether it registers the adapter, and the path under which each lock name is one
 * segment (esrel's {@code PathNames}), in the namespace of the {@code TreeLocks} bean.
 */
public abstract class LockAdapterProperties {

    /** Whether to register the adapter when its library and esrel's are on the class path. */
    private boolean enabled = true;

    /** The path under which each lock name becomes one escaped path segment, in the locks' namespace. */
    private String prefix;

    /**
     * Properties with the adapter's default prefix.
     *
     * @param defaultPrefix the prefix when none is set
     */
    protected LockAdapterProperties(String defaultPrefix) {
        this.prefix = defaultPrefix;
    }

    /**
     * Whether the adapter is registered.
     *
     * @return false when switched off
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Whether the adapter is registered.
     *
     * @param enabled false to leave the adapter to the application
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The path the lock names go under.
     *
     * @return the prefix
     */
    public String getPrefix() {
        return prefix;
    }

    /**
     * The path the lock names go under.
     *
     * @param prefix a normalised absolute path ({@code /} for the namespace's root)
     */
    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }
}
