// The parts of the extension module, each defined in its own file and
// called by python/module.cc.
#ifndef BLOCKBLOOM_PYTHON_BINDINGS_H_
#define BLOCKBLOOM_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace blockbloom::python {

void DefineFilter(pybind11::module_& m);          // filter_binding.cc
void DefineBloomFilter(pybind11::module_& m);     // bloom_binding.cc
void DefineCountingFilter(pybind11::module_& m);  // counting_binding.cc
void DefineScalableFilter(pybind11::module_& m);  // scalable_binding.cc

}  // namespace blockbloom::python

#endif  // BLOCKBLOOM_PYTHON_BINDINGS_H_
