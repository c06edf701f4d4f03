package ipoib.api.config;

import java.util.Map;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a component did with a configuration Configuration Admin delivered: took it, or refused it
 * and kept the one in force. Configuration Admin cannot tell whoever stored a configuration (it
 * stores first and delivers later); every component of the project tells the services of this
 * type, so that a tool that stores a configuration ({@code ipoib:config}) can wait for the outcome
 * and report a refusal as one, with what stays in force.
 *
 * <p>Called on the thread that delivered the configuration: an implementation returns at once.
 */
@ConsumerType
public interface ConfigurationVerdicts {

    /**
     * The component runs with these properties.
     *
     * @param pid        the configuration's PID
     * @param properties its properties as the component was given them (stored values over the
     *                   defaults), without what Configuration Admin and Declarative Services add
     */
    void accepted(String pid, Map<String, Object> properties);

    /**
     * The component refused these properties and runs on with the configuration in force.
     *
     * @param pid        the configuration's PID
     * @param properties the refused properties as the component was given them
     * @param why        the refusal: the property, the value and what is allowed
     * @param inForce    the stored properties of the configuration in force (empty: the defaults),
     *                   or null when none is and the configuration was deleted
     */
    void refused(String pid, Map<String, Object> properties, String why, Map<String, Object> inForce);
}
