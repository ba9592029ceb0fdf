import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.FieldModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Does code compiled against one version of a library link against another? Reads the class files of
 * {@code CLASSES} (a directory or jar), takes every class, method and field they reference in the packages
 * {@code PREFIX} (e.g. {@code co/elastic/clients/}), and looks each up in {@code LIBRARY} (the other version's
 * jar), walking superclasses and interfaces as the JVM resolves a member. Prints what would fail with
 * {@code NoClassDefFoundError}, {@code NoSuchMethodError} or {@code NoSuchFieldError}, with the classes that
 * reference it, and exits 1 if anything would.
 *
 * <p>Run on a JDK 24+ (it reads class files with {@code java.lang.classfile}):
 * {@code java tools/LinkageCheck.java client-toolkit/target/classes elasticsearch-java-9.0.0.jar co/elastic/clients/}
 */
public final class LinkageCheck {

    record Member(String owner, String name, String descriptor, boolean method) {
        @Override
        public String toString() {
            return owner.replace('/', '.') + (method ? "." + name + descriptor : "#" + name + ":" + descriptor);
        }
    }

    record Shape(String superName, List<String> interfaces, Set<String> members) {}

    public static void main(String[] args) throws IOException {
        Path classes = Path.of(args[0]);
        String prefix = args[2];
        Map<String, Shape> library = shapes(Path.of(args[1]));

        Map<String, Set<String>> missingClasses = new TreeMap<>();
        Map<String, Set<String>> missingMembers = new TreeMap<>();
        for (ClassModel model : read(classes)) {
            String user = model.thisClass().asInternalName();
            for (PoolEntry entry : model.constantPool()) {
                if (entry instanceof MemberRefEntry ref) {
                    String owner = ref.owner().asInternalName();
                    if (!owner.startsWith(prefix)) {
                        continue;
                    }
                    if (!library.containsKey(owner)) {
                        missingClasses.computeIfAbsent(owner, k -> new TreeSet<>()).add(user);
                        continue;
                    }
                    boolean method = !(entry instanceof java.lang.classfile.constantpool.FieldRefEntry);
                    String key = ref.name().stringValue() + ref.type().stringValue();
                    if (!resolves(library, owner, key, new HashSet<>())) {
                        Member m = new Member(owner, ref.name().stringValue(), ref.type().stringValue(), method);
                        missingMembers.computeIfAbsent(m.toString(), k -> new TreeSet<>()).add(user);
                    }
                } else if (entry instanceof ClassEntry c) {
                    String name = c.asInternalName();
                    while (name.startsWith("[")) {
                        name = name.substring(1);
                    }
                    if (name.startsWith("L") && name.endsWith(";")) {
                        name = name.substring(1, name.length() - 1);
                    }
                    if (name.startsWith(prefix) && !library.containsKey(name)) {
                        missingClasses.computeIfAbsent(name, k -> new TreeSet<>()).add(user);
                    }
                }
            }
        }
        missingClasses.forEach((c, users) -> System.out.println("missing class  " + c.replace('/', '.') + "  <- " + names(users)));
        missingMembers.forEach((m, users) -> System.out.println("missing member " + m + "  <- " + names(users)));
        int problems = missingClasses.size() + missingMembers.size();
        System.out.println(problems == 0
                ? "linkage check: every reference to " + prefix + " resolves in " + args[1]
                : "linkage check: " + problems + " references to " + prefix + " do not resolve in " + args[1]);
        System.exit(problems == 0 ? 0 : 1);
    }

    private static String names(Set<String> users) {
        List<String> out = new ArrayList<>();
        users.forEach(u -> out.add(u.substring(u.lastIndexOf('/') + 1)));
        return String.join(", ", out);
    }

    /** A member resolves in its class, a superclass, or a superinterface; outside the library we trust the JDK. */
    private static boolean resolves(Map<String, Shape> library, String owner, String key, Set<String> seen) {
        if (!seen.add(owner)) {
            return false;
        }
        Shape shape = library.get(owner);
        if (shape == null) {
            return inJdk(owner, key); // the library's classes end in java.lang.Object and JDK interfaces
        }
        if (shape.members().contains(key)) {
            return true;
        }
        if (shape.superName() != null && resolves(library, shape.superName(), key, seen)) {
            return true;
        }
        for (String i : shape.interfaces()) {
            if (resolves(library, i, key, seen)) {
                return true;
            }
        }
        return false;
    }

    private static boolean inJdk(String owner, String key) {
        if (!owner.startsWith("java/")) {
            return false;
        }
        try {
            for (Class<?> c = Class.forName(owner.replace('/', '.')); c != null; c = c.getSuperclass()) {
                for (var m : c.getDeclaredMethods()) {
                    String d = java.lang.invoke.MethodType.methodType(m.getReturnType(), m.getParameterTypes())
                            .toMethodDescriptorString();
                    if (key.equals(m.getName() + d)) {
                        return true;
                    }
                }
            }
            for (Class<?> i : Class.forName(owner.replace('/', '.')).getInterfaces()) {
                if (inJdk(i.getName().replace('.', '/'), key)) {
                    return true;
                }
            }
        } catch (ClassNotFoundException e) {
            return false;
        }
        return false;
    }

    private static Map<String, Shape> shapes(Path jar) throws IOException {
        Map<String, Shape> shapes = new HashMap<>();
        for (ClassModel m : read(jar)) {
            Set<String> members = new HashSet<>();
            for (MethodModel method : m.methods()) {
                members.add(method.methodName().stringValue() + method.methodType().stringValue());
            }
            for (FieldModel field : m.fields()) {
                members.add(field.fieldName().stringValue() + field.fieldType().stringValue());
            }
            shapes.put(
                    m.thisClass().asInternalName(),
                    new Shape(
                            m.superclass().map(ClassEntry::asInternalName).orElse(null),
                            m.interfaces().stream().map(ClassEntry::asInternalName).toList(),
                            members));
        }
        return shapes;
    }

    private static List<ClassModel> read(Path where) throws IOException {
        List<ClassModel> models = new ArrayList<>();
        if (Files.isDirectory(where)) {
            try (Stream<Path> files = Files.walk(where)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    models.add(ClassFile.of().parse(Files.readAllBytes(f)));
                }
            }
            return models;
        }
        try (JarFile jar = new JarFile(where.toFile())) {
            for (var e : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                if (e.getName().startsWith("META-INF/")) {
                    continue; // multi-release copies
                }
                try (InputStream in = jar.getInputStream(e)) {
                    models.add(ClassFile.of().parse(in.readAllBytes()));
                }
            }
        }
        return models;
    }
}
