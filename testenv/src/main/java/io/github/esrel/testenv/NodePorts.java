package io.github.esrel.testenv;

/** The HTTP and transport ports of one local node. */
record NodePorts(int http, int transport) {

    static NodePorts allocate(PortAllocator ports) {
        return new NodePorts(ports.next(), ports.next());
    }

    void release(PortAllocator ports) {
        ports.release(http);
        ports.release(transport);
    }
}
