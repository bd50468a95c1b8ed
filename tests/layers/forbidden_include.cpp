// Compiled by Layers.ForbiddenIncludeFailsToBuild with only ksearch_tasks linked: tasks may not
// include the run store (src/layers.toml), so this #include must not resolve.
#include "store/run_store.hpp"
