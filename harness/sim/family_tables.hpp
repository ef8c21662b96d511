// A family's simulator cost tables live with the family (probes/<family>/), not in the preset
// struct: the family registers, once, how to make its table for a preset and how `slowdown=F`
// scales it (sim::PresetTable, a namespace-scope constant), under the family's name. presets()
// attaches every registered table to every preset, slowed_preset() scales each, and the family's
// simulated launches (and its tests) read it with preset.table<T>("compute").
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "harness/error.hpp"

namespace gpuprobe::sim {

struct Preset;

class FamilyTables {
 public:
  struct Entry {
    std::type_index type;
    std::shared_ptr<const void> table;
  };
  // The table registered as `name`, or nullptr; a T other than the registered type is a
  // programming error (Error).
  template <class T>
  const T* find(const std::string& name) const {
    const auto it = tables_.find(name);
    if (it == tables_.end() || !it->second.table) return nullptr;
    if (it->second.type != std::type_index(typeid(T)))
      throw Error("the simulator table '" + name + "' is read as another type than it was registered with");
    return static_cast<const T*>(it->second.table.get());
  }
  void set(const std::string& name, Entry entry) { tables_.insert_or_assign(name, std::move(entry)); }
  // A table of its own for `name` (a test's modified preset).
  template <class T>
  void put(const std::string& name, T table) {
    set(name, {std::type_index(typeid(T)), std::make_shared<const T>(std::move(table))});
  }
  const std::map<std::string, Entry>& all() const { return tables_; }

 private:
  std::map<std::string, Entry> tables_;
};

struct TableMaker {
  std::string name;  // the family's: "compute"
  std::type_index type;
  // The table of `preset` (made from its name and its cited figures), or nullptr for none.
  std::function<std::shared_ptr<const void>(const Preset& preset)> make;
  // A copy of `table` with every rate divided by `factor` and every latency or cost multiplied.
  std::function<std::shared_ptr<const void>(const std::shared_ptr<const void>& table, double factor)> slow;
};

// Every registered maker, in registration order. Registering after presets() first ran is a
// programming error (the presets are made once).
std::vector<TableMaker>& table_makers();

template <class T>
struct PresetTable {
  // make(preset): the family's table for that preset (an empty table where the preset has no
  // model: the family says so). slow(table, factor): scales a copy in place.
  PresetTable(std::string name, std::function<T(const Preset&)> make, std::function<void(T&, double)> slow) {
    table_makers().push_back(TableMaker{
        std::move(name), std::type_index(typeid(T)),
        [make = std::move(make)](const Preset& p) -> std::shared_ptr<const void> {
          return std::make_shared<const T>(make(p));
        },
        [slow = std::move(slow)](const std::shared_ptr<const void>& table, double factor)
            -> std::shared_ptr<const void> {
          auto copy = std::make_shared<T>(*static_cast<const T*>(table.get()));
          slow(*copy, factor);
          return copy;
        }});
  }
};

}  // namespace gpuprobe::sim
