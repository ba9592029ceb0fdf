package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Executable;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Every class, method and field of elasticsearch-java that esrel's compiled classes use resolves in the client on
 * this test's class path. The jar is compiled against the newest client of its line, while applications run it on
 * the one their framework pins (Spring Boot's BOM): an overload that exists only in newer clients compiles fine and
 * fails only when reached ({@code NoSuchMethodError}). The tests' own classes are checked too. Run with {@code -Desrel.test.client=<oldest supported>}
 * (the client-under-test profile, as run-tests does), this proves the whole jar links against that client, not
 * just the paths the ITs take.
 */
class ClientLinkageTest {

    private static final String CLIENT = "co/elastic/clients/";

    @Test
    void shouldLinkEveryReferenceToTheClientOnTheClassPath() throws IOException {
        Set<String> unresolved = new TreeSet<>();
        // The jar's classes, and this suite's own: an IT that cannot link against the client would fail with a
        // NoSuchMethodError in the middle of a run; here it is named before any node starts.
        int classes = 0;
        for (Class<?> c : List.of(ClientApi.class, ClientLinkageTest.class)) {
            // A directory of classes under Surefire, the module's jar under Failsafe.
            Path where = Path.of(
                    c.getProtectionDomain().getCodeSource().getLocation().getPath());
            try (FileSystem jar = Files.isDirectory(where) ? null : FileSystems.newFileSystem(where);
                    Stream<Path> walk = Files.walk(jar == null ? where : jar.getPath("/"))) {
                for (Path file :
                        walk.filter(p -> p.toString().endsWith(".class")).toList()) {
                    try (InputStream in = Files.newInputStream(file)) {
                        new ClassReader(in).accept(new References(unresolved), ClassReader.SKIP_FRAMES);
                    }
                    classes++;
                }
            }
        }
        assertThat(classes).as("esrel's classes and tests").isPositive();
        assertThat(unresolved)
                .as("references that do not resolve in elasticsearch-java %s", clientVersion())
                .isEmpty();
    }

    private static String clientVersion() {
        return String.valueOf(co.elastic.clients.transport.Version.VERSION);
    }

    /** Collects what the bytecode of one class references in the client and cannot be resolved. */
    private static final class References extends ClassVisitor {
        private final Set<String> unresolved;
        private String user;

        References(Set<String> unresolved) {
            super(Opcodes.ASM9);
            this.unresolved = unresolved;
        }

        @Override
        public void visit(int v, int access, String name, String sig, String superName, String[] interfaces) {
            user = name;
            type(superName);
            if (interfaces != null) {
                for (String i : interfaces) {
                    type(i);
                }
            }
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String desc, String sig, String[] exceptions) {
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitMethodInsn(int op, String owner, String name, String desc, boolean itf) {
                    member(owner, name, desc, true);
                }

                @Override
                public void visitFieldInsn(int op, String owner, String name, String desc) {
                    member(owner, name, desc, false);
                }

                @Override
                public void visitTypeInsn(int op, String type) {
                    type(type);
                }

                @Override
                public void visitLdcInsn(Object value) {
                    if (value instanceof Type t && t.getSort() == Type.OBJECT) {
                        type(t.getInternalName());
                    }
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String desc, Handle bsm, Object... args) {
                    // Method references (Builder::routing) live here, not in a method instruction.
                    for (Object a : args) {
                        if (a instanceof Handle h) {
                            member(
                                    h.getOwner(),
                                    h.getName(),
                                    h.getDesc(),
                                    h.getTag() != Opcodes.H_GETFIELD
                                            && h.getTag() != Opcodes.H_GETSTATIC
                                            && h.getTag() != Opcodes.H_PUTFIELD
                                            && h.getTag() != Opcodes.H_PUTSTATIC);
                        }
                    }
                }
            };
        }

        private void type(String internalName) {
            if (internalName != null && internalName.startsWith(CLIENT) && load(internalName) == null) {
                unresolved.add("class " + internalName.replace('/', '.') + " (used by " + user + ")");
            }
        }

        private void member(String owner, String name, String desc, boolean method) {
            if (!owner.startsWith(CLIENT)) {
                return;
            }
            Class<?> c = load(owner);
            if (c == null) {
                type(owner);
            } else if (!resolves(c, name, desc, method)) {
                unresolved.add(
                        owner.replace('/', '.') + (method ? "." : "#") + name + desc + " (used by " + user + ")");
            }
        }
    }

    private static Class<?> load(String internalName) {
        try {
            return Class.forName(internalName.replace('/', '.'), false, ClientLinkageTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static boolean resolves(Class<?> c, String name, String desc, boolean method) {
        try {
            return method ? hasMethod(c, name, desc) : hasField(c, name, desc);
        } catch (LinkageError e) {
            return false; // a member's signature names a class this client does not have
        }
    }

    /** As the JVM resolves a method: the class, its superclasses, then every superinterface. */
    private static boolean hasMethod(Class<?> c, String name, String desc) {
        List<Class<?>> todo = new ArrayList<>(List.of(c));
        while (!todo.isEmpty()) {
            Class<?> k = todo.remove(0);
            List<Executable> members = new ArrayList<>(List.of(k.getDeclaredMethods()));
            if (name.equals("<init>")) {
                members = List.of(k.getDeclaredConstructors());
            }
            for (Executable m : members) {
                Class<?> returns = m instanceof java.lang.reflect.Method method ? method.getReturnType() : void.class;
                if ((name.equals("<init>") || m.getName().equals(name))
                        && MethodType.methodType(returns, m.getParameterTypes())
                                .toMethodDescriptorString()
                                .equals(desc)) {
                    return true;
                }
            }
            if (name.equals("<init>")) {
                return false; // constructors are not inherited
            }
            if (k.getSuperclass() != null) {
                todo.add(k.getSuperclass());
            } else if (k.isInterface()) {
                todo.add(Object.class); // an interface method reference may name Object's methods
            }
            todo.addAll(List.of(k.getInterfaces()));
        }
        return false;
    }

    private static boolean hasField(Class<?> c, String name, String desc) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (var f : k.getDeclaredFields()) {
                if (f.getName().equals(name) && Type.getDescriptor(f.getType()).equals(desc)) {
                    return true;
                }
            }
            for (Class<?> i : k.getInterfaces()) {
                if (hasField(i, name, desc)) {
                    return true;
                }
            }
        }
        return false;
    }
}
