package arbor.jobs.conf;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Binds a resolved HOCON tree onto records: each record component is the key of its snake_case
 * name. Strict both ways: a key no component reads, a missing key, or a value of the wrong type
 * is a {@link ConfigError} naming the dotted key, the file and line it came from, and the
 * expected type. Supports strings, numbers, booleans, enums, lists, string maps and nested
 * records.
 */
final class RecordBinder {
  private RecordBinder() {}

  static <R extends Record> R bind(Config config, Class<R> type) {
    return type.cast(bindRecord(config, "", type));
  }

  private static Object bindRecord(Config config, String prefix, Class<?> type) {
    RecordComponent[] components = type.getRecordComponents();
    ConfigObject object = prefix.isEmpty() ? config.root() : config.getObject(prefix);
    Set<String> expected = new TreeSet<>();
    for (RecordComponent c : components) expected.add(snake(c.getName()));
    for (String key : object.keySet()) {
      if (!expected.contains(key)) {
        throw new ConfigError("unknown key '" + join(prefix, key) + "' " + where(object.get(key).origin())
            + "; the keys under '" + (prefix.isEmpty() ? "(root)" : prefix) + "' are " + expected);
      }
    }
    Object[] values = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      String key = join(prefix, snake(c.getName()));
      if (!object.containsKey(snake(c.getName())) || object.get(snake(c.getName())).valueType() == ConfigValueType.NULL) {
        throw new ConfigError("missing key '" + key + "': every key needs a value (conf/defaults.conf lists them all)");
      }
      values[i] = value(config, key, c.getType(), c.getGenericType());
      types[i] = c.getType();
    }
    try {
      return type.getDeclaredConstructor(types).newInstance(values);
    } catch (java.lang.reflect.InvocationTargetException e) {
      // The record's own check refused the values: its message says which and why.
      Throwable why = e.getCause() == null ? e : e.getCause();
      throw new ConfigError("invalid '" + prefix + "': " + why.getMessage(), why);
    } catch (ReflectiveOperationException e) {
      throw new ConfigError("cannot build " + type.getSimpleName() + " from '" + prefix + "': " + e.getMessage(), e);
    }
  }

  private static Object value(Config config, String key, Class<?> type, Type generic) {
    ConfigValue raw = config.getValue(key);
    try {
      if (type == String.class) return string(raw, key);
      if (type == int.class || type == Integer.class) return config.getInt(key);
      if (type == long.class || type == Long.class) return config.getLong(key);
      if (type == double.class || type == Double.class) return config.getDouble(key);
      if (type == boolean.class || type == Boolean.class) return config.getBoolean(key);
      if (type == Duration.class) return config.getDuration(key);
      if (type.isEnum()) return enumValue(raw, key, type);
      if (type.isRecord()) {
        if (raw.valueType() != ConfigValueType.OBJECT) throw typeError(key, raw, "an object { ... }");
        return bindRecord(config, key, type);
      }
      if (type == List.class) return list(config, key, raw, element(generic, 0));
      if (type == Map.class) return stringMap(config, key, raw);
    } catch (ConfigException.WrongType | ConfigException.BadValue e) {
      throw typeError(key, raw, expectedName(type));
    }
    throw new ConfigError("key '" + key + "' has a type the binder does not support: " + generic);
  }

  private static String string(ConfigValue raw, String key) {
    if (raw.valueType() == ConfigValueType.OBJECT || raw.valueType() == ConfigValueType.LIST) {
      throw typeError(key, raw, "a string");
    }
    return String.valueOf(raw.unwrapped());
  }

  private static Object enumValue(ConfigValue raw, String key, Class<?> type) {
    String text = string(raw, key).toUpperCase(Locale.ROOT);
    for (Object constant : type.getEnumConstants()) {
      if (((Enum<?>) constant).name().equals(text)) return constant;
    }
    throw typeError(key, raw, "one of " + enumNames(type));
  }

  private static List<Object> list(Config config, String key, ConfigValue raw, Class<?> element) {
    if (raw.valueType() != ConfigValueType.LIST) throw typeError(key, raw, "a list [ ... ]");
    List<Object> out = new ArrayList<>();
    if (element == String.class) out.addAll(config.getStringList(key));
    else if (element == Integer.class) out.addAll(config.getIntList(key));
    else if (element == Double.class) out.addAll(config.getDoubleList(key));
    else throw new ConfigError("key '" + key + "': lists of " + element.getSimpleName() + " are not supported");
    return List.copyOf(out);
  }

  private static Map<String, String> stringMap(Config config, String key, ConfigValue raw) {
    if (raw.valueType() != ConfigValueType.OBJECT) throw typeError(key, raw, "an object { key = value }");
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigValue> e : config.getConfig(key).entrySet()) {
      ConfigValue v = e.getValue();
      String flatKey = String.join(".", ConfigUtil.splitPath(e.getKey()));
      if (v.valueType() == ConfigValueType.LIST) throw typeError(join(key, e.getKey()), v, "a string, number or boolean");
      out.put(flatKey, String.valueOf(v.unwrapped()));
    }
    return Map.copyOf(out);
  }

  private static ConfigError typeError(String key, ConfigValue raw, String expected) {
    String got = raw.valueType() == ConfigValueType.STRING ? "\"" + raw.unwrapped() + "\"" : raw.render();
    return new ConfigError("key '" + key + "' " + where(raw.origin()) + ": expected " + expected
        + ", got " + raw.valueType().name().toLowerCase(Locale.ROOT) + " " + got);
  }

  static String where(ConfigOrigin origin) {
    if (origin == null) return "";
    String file = origin.filename() != null ? origin.filename()
        : origin.resource() != null ? origin.resource() + " (inside the jar)"
        : origin.description();
    return origin.lineNumber() > 0 ? "(" + file + ":" + origin.lineNumber() + ")" : "(" + file + ")";
  }

  private static String expectedName(Class<?> type) {
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) return "an integer";
    if (type == double.class || type == Double.class) return "a number";
    if (type == boolean.class || type == Boolean.class) return "true or false";
    if (type == Duration.class) return "a duration such as 30s, 500ms or 10m";
    return type.getSimpleName();
  }

  private static List<String> enumNames(Class<?> type) {
    List<String> names = new ArrayList<>();
    for (Object c : type.getEnumConstants()) names.add(((Enum<?>) c).name().toLowerCase(Locale.ROOT));
    return names;
  }

  private static Class<?> element(Type generic, int index) {
    if (generic instanceof ParameterizedType p && p.getActualTypeArguments()[index] instanceof Class<?> c) return c;
    return String.class;
  }

  private static String join(String prefix, String key) {
    return prefix.isEmpty() ? key : prefix + "." + key;
  }

  static String snake(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }
}
