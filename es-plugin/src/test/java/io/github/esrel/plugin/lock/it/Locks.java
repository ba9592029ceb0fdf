package io.github.esrel.plugin.lock.it;

import io.github.esrel.plugin.it.Http;
import java.util.LinkedHashMap;
import java.util.Map;

/** The tree lock endpoints over raw HTTP, for the ITs. */
final class Locks {

    private final Http http;

    Locks(Http http) {
        this.http = http;
    }

    Http http() {
        return http;
    }

    /** {@code POST /{index}/_treelock/acquire}; null arguments are left out of the body. */
    Http.Response acquire(String index, String path, String mode, String owner, String ttl, String wait) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("path", path);
        if (mode != null) {
            body.put("mode", mode);
        }
        body.put("owner", owner);
        if (ttl != null) {
            body.put("ttl", ttl);
        }
        if (wait != null) {
            body.put("wait", wait);
        }
        return http.post("/" + index + "/_treelock/acquire", Http.json(body));
    }

    Http.Response acquire(String index, String path, String mode, String owner) {
        return acquire(index, path, mode, owner, null, null);
    }

    /** An acquire with a grant id, exclusive, with the default lease, failing fast. */
    Http.Response acquireWithId(String index, String path, String owner, String grantId) {
        return http.post(
                "/" + index + "/_treelock/acquire",
                Http.json(Map.of("path", path, "owner", owner, "grant_id", grantId)));
    }

    /** A release with a grant id; by the grant id alone when {@code token} is 0. */
    Http.Response releaseWithId(String index, String path, String owner, long token, String grantId) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("path", path);
        body.put("owner", owner);
        if (token != 0) {
            body.put("token", token);
        }
        body.put("grant_id", grantId);
        return http.post("/" + index + "/_treelock/release", Http.json(body));
    }

    Http.Response release(String index, String path, String owner, long token) {
        return http.post(
                "/" + index + "/_treelock/release", Http.json(Map.of("path", path, "owner", owner, "token", token)));
    }

    Http.Response renew(String index, String path, String owner, long token, String ttl) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("path", path);
        body.put("owner", owner);
        body.put("token", token);
        if (ttl != null) {
            body.put("ttl", ttl);
        }
        return http.post("/" + index + "/_treelock/renew", Http.json(body));
    }

    Http.Response list(String index, String path) {
        return http.get("/" + index + "/_treelock" + (path == null ? "" : "?path=" + Http.enc(path)));
    }
}
