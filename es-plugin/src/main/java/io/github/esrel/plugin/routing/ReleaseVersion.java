package io.github.esrel.plugin.routing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An Elasticsearch release version such as {@code 8.19.0}, as users know it. Index versions inside the
 * server are opaque ids that no longer follow release numbers, so requests name the release instead.
 *
 * @param major the major version
 * @param minor the minor version
 * @param patch the patch version
 */
public record ReleaseVersion(int major, int minor, int patch) implements Comparable<ReleaseVersion> {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})\\.(\\d{1,4})(?:-SNAPSHOT)?");

    /**
     * Parses {@code MAJOR.MINOR.PATCH} (an optional {@code -SNAPSHOT} suffix is ignored).
     *
     * @param field the request field the value comes from, named in the message
     * @param value the version as given, such as {@code 8.19.0}; null is refused
     * @return the parsed version
     * @throws IllegalArgumentException naming the value and the expected format
     */
    public static ReleaseVersion parse(String field, @Nullable String value) {
        Matcher m = value == null ? null : FORMAT.matcher(value);
        if (m == null || m.matches() == false) {
            throw new IllegalArgumentException(
                    field + " must be an Elasticsearch release version like [8.19.0] or [9.5.3], got [" + value + "]");
        }
        return new ReleaseVersion(
                Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
    }

    /**
     * True if this release is strictly older than {@code other}.
     *
     * @param other the release to compare with
     * @return {@code true} if this release comes before {@code other}
     */
    public boolean before(ReleaseVersion other) {
        return compareTo(other) < 0;
    }

    @Override
    public int compareTo(ReleaseVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) {
            c = Integer.compare(minor, o.minor);
        }
        return c != 0 ? c : Integer.compare(patch, o.patch);
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
