package io.github.esrel.internal;

import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.TransportOptions;
import java.io.IOException;

/**
 * A transport of esrel's on top of another: its mapper, options and closing are the other's; what it changes about
 * the requests is its own ({@link ResendGuard}, {@link StatusNormalizingTransport}).
 */
abstract class ForwardingTransport implements ElasticsearchTransport {

    /** The transport this one sends with. */
    protected final ElasticsearchTransport delegate;

    ForwardingTransport(ElasticsearchTransport delegate) {
        this.delegate = delegate;
    }

    /** The transport this one sends with. */
    final ElasticsearchTransport delegate() {
        return delegate;
    }

    @Override
    public final JsonpMapper jsonpMapper() {
        return delegate.jsonpMapper();
    }

    @Override
    public final TransportOptions options() {
        return delegate.options();
    }

    @Override
    public final void close() throws IOException {
        delegate.close();
    }
}
