package ipoib.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Array;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Checks a component's configuration against its metatype: the XML that bnd generates from the
 * {@code @ObjectClassDefinition} into {@code OSGI-INF/metatype/<type>.xml}. Each property's type,
 * range and choices are so declared once, in the annotation, and the same declaration drives
 * the configuration UI, the documentation and this check.
 *
 * <p>Declarative Services converts a value it cannot represent silently (a Long of 2^32 + 1 for an
 * int becomes 1, "nope" for a boolean becomes false, "abc" for a number fails without the
 * property's name); a component calls {@link #check} before it converts, refuses what does not fit
 * and keeps its previous configuration.
 */
public final class ConfigCheck {
    private final String pid;
    private final Map<String, ConfigAttribute> attributes;

    private ConfigCheck(String pid, Map<String, ConfigAttribute> attributes) {
        this.pid = pid;
        this.attributes = attributes;
    }

    /** The check of the object class definition generated from {@code ocdType}, found through its class loader. */
    public static ConfigCheck of(Class<?> ocdType) {
        return of(ocdType.getName(), ocdType.getClassLoader());
    }

    /** The check of the definition with id {@code ocdId}, from {@code OSGI-INF/metatype/<ocdId>.xml}. */
    public static ConfigCheck of(String ocdId, ClassLoader loader) {
        String resource = "OSGI-INF/metatype/" + ocdId + ".xml";
        URL url = loader.getResource(resource);
        if (url == null) {
            throw new IllegalStateException("no metatype " + resource + " (bnd writes it from the @ObjectClassDefinition "
                    + ocdId + ")");
        }
        try (InputStream in = url.openStream()) {
            return parse(in, ocdId);
        } catch (IOException | javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new IllegalStateException("unreadable metatype " + resource + ": " + e, e);
        }
    }

    /** The PID (or factory PID) the definition is designated to; the OCD id when none is. */
    public String pid() {
        return pid;
    }

    /** The attributes in declaration order. */
    public Collection<ConfigAttribute> attributes() {
        return attributes.values();
    }

    /** The attribute of a property, or null. */
    public ConfigAttribute attribute(String property) {
        return attributes.get(property);
    }

    /**
     * Refuses a configuration with a property the definition does not allow, or with a property it
     * does not declare (a misspelt name would otherwise be stored and silently ignored). The
     * properties Configuration Admin and Declarative Services add themselves pass (service.*,
     * component.*, felix.*, osgi.ds.*, and reference targets {@code <reference>.target}).
     *
     * @throws ConfigRefusedException naming every refused property, its value and what is allowed
     */
    public void check(Map<String, ?> properties) {
        check(properties, true);
    }

    /**
     * {@link #check} of the declared properties only: for a component whose Declarative Services
     * properties also hold its own service properties ({@code @Component(property = ...)}), which
     * are not part of its configuration. What is stored is checked whole before it is stored
     * ({@code ipoib:config}).
     *
     * @throws ConfigRefusedException naming every refused property, its value and what is allowed
     */
    public void checkDeclared(Map<String, ?> properties) {
        check(properties, false);
    }

    /** {@link #checkDeclared} as a message: null when the declared properties are allowed. */
    public String problemsOfDeclared(Map<String, ?> properties) {
        try {
            checkDeclared(properties);
            return null;
        } catch (ConfigRefusedException e) {
            return e.getMessage();
        }
    }

    private void check(Map<String, ?> properties, boolean refuseUnknown) {
        List<String> problems = new ArrayList<>();
        for (String key : refuseUnknown ? properties.keySet() : List.<String>of()) {
            if (!attributes.containsKey(key) && !isFrameworkProperty(key)) {
                problems.add("unknown " + pid + " property '" + ShownValue.cut(key) + "' (value "
                        + ShownValue.of(properties.get(key)) + "): allowed " + String.join(", ", attributes.keySet()));
            }
        }
        for (ConfigAttribute a : attributes.values()) {
            if (!properties.containsKey(a.id())) {
                continue;
            }
            Object value = properties.get(a.id());
            for (Object v : values(value)) {
                String problem = a.problem(v);
                if (problem != null) {
                    problems.add("invalid " + pid + " property '" + a.id() + "' value " + show(v) + " " + problem);
                    break;
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigRefusedException(problems);
        }
    }

    /** {@link #check} as a message: null when the configuration is allowed. */
    public String problems(Map<String, ?> properties) {
        try {
            check(properties);
            return null;
        } catch (ConfigRefusedException e) {
            return e.getMessage();
        }
    }

    private static List<Object> values(Object value) {
        List<Object> out = new ArrayList<>();
        if (value != null && value.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                out.add(Array.get(value, i));
            }
        } else if (value instanceof Collection<?> c) {
            out.addAll(c);
        } else {
            out.add(value);
        }
        return out;
    }

    /** A property that Configuration Admin or Declarative Services put there, not the user. */
    public static boolean isFrameworkProperty(String key) {
        return key.startsWith("service.") || key.startsWith("component.") || key.startsWith("felix.")
                || key.startsWith("osgi.ds.") || key.startsWith(":org.apache.felix.") || key.endsWith(".target");
    }

    private static String show(Object v) {
        return ShownValue.of(v);
    }

    private static ConfigCheck parse(InputStream in, String ocdId)
            throws IOException, javax.xml.parsers.ParserConfigurationException, org.xml.sax.SAXException {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setExpandEntityReferences(false);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = f.newDocumentBuilder().parse(in);
        Map<String, ConfigAttribute> attributes = new LinkedHashMap<>();
        Element ocd = null;
        NodeList ocds = doc.getElementsByTagNameNS("*", "OCD");
        if (ocds.getLength() == 0) {
            ocds = doc.getElementsByTagName("OCD");
        }
        for (int i = 0; i < ocds.getLength(); i++) {
            Element e = (Element) ocds.item(i);
            if (ocdId.equals(e.getAttribute("id")) || ocds.getLength() == 1) {
                ocd = e;
            }
        }
        if (ocd == null) {
            throw new IllegalStateException("metatype has no OCD " + ocdId);
        }
        NodeList ads = ocd.getElementsByTagName("AD");
        for (int i = 0; i < ads.getLength(); i++) {
            Element ad = (Element) ads.item(i);
            List<String> options = new ArrayList<>();
            NodeList opts = ad.getElementsByTagName("Option");
            for (int j = 0; j < opts.getLength(); j++) {
                options.add(((Element) opts.item(j)).getAttribute("value"));
            }
            String card = ad.getAttribute("cardinality");
            ConfigAttribute a = new ConfigAttribute(ad.getAttribute("id"), ad.getAttribute("name"),
                    ad.getAttribute("description"), orDefault(ad.getAttribute("type"), "String"),
                    blankToNull(ad.getAttribute("min")), blankToNull(ad.getAttribute("max")), List.copyOf(options),
                    ad.hasAttribute("default") ? ad.getAttribute("default") : null,
                    card.isBlank() ? 0 : Integer.parseInt(card.strip()));
            attributes.put(a.id(), a);
        }
        String pid = ocd.getAttribute("id");
        NodeList designates = doc.getElementsByTagName("Designate");
        for (int i = 0; i < designates.getLength(); i++) {
            Element d = (Element) designates.item(i);
            String p = d.hasAttribute("factoryPid") && !d.getAttribute("factoryPid").isBlank()
                    ? d.getAttribute("factoryPid") : d.getAttribute("pid");
            if (!p.isBlank()) {
                pid = p;
            }
        }
        return new ConfigCheck(pid, attributes);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    private static String orDefault(String s, String d) {
        return s == null || s.isBlank() ? d : s;
    }
}
