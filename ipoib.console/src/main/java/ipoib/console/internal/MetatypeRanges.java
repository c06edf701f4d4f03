package ipoib.console.internal;

import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.osgi.framework.Bundle;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The min/max of each attribute of an object class, read from the metatype XML the bundle carries
 * (bnd writes it from the @AttributeDefinition annotations): the MetaType API validates them but
 * does not expose them, and the operator should see the range before typing a value.
 */
final class MetatypeRanges {
    record Range(String min, String max) {
        String text() {
            if (min == null && max == null) {
                return "";
            }
            return (min == null ? "" : min) + ".." + (max == null ? "" : max);
        }
    }

    private MetatypeRanges() {}

    static Map<String, Range> of(Bundle bundle, String ocdId) {
        Map<String, Range> ranges = new HashMap<>();
        Enumeration<URL> files = bundle.findEntries("OSGI-INF/metatype", "*.xml", false);
        if (files == null) {
            return ranges;
        }
        while (files.hasMoreElements()) {
            URL url = files.nextElement();
            try (InputStream in = url.openStream()) {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setNamespaceAware(false);
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                Document doc = factory.newDocumentBuilder().parse(in);
                NodeList ocds = doc.getElementsByTagName("OCD");
                for (int i = 0; i < ocds.getLength(); i++) {
                    Element ocd = (Element) ocds.item(i);
                    if (!ocd.getAttribute("id").equals(ocdId)) {
                        continue;
                    }
                    NodeList ads = ocd.getElementsByTagName("AD");
                    for (int j = 0; j < ads.getLength(); j++) {
                        Element ad = (Element) ads.item(j);
                        String min = ad.getAttribute("min");
                        String max = ad.getAttribute("max");
                        ranges.put(ad.getAttribute("id"), new Range(min.isEmpty() ? null : min, max.isEmpty() ? null : max));
                    }
                }
            } catch (Exception e) {
                // A metatype file we cannot read only costs the range display; validation still runs.
            }
        }
        return ranges;
    }
}
