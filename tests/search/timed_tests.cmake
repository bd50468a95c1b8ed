# Included by ctest after the discovered tests (tests/search/CMakeLists.txt).
set_tests_properties(BuiltinSearch.SoftmaxFindsAVerifiedSpeedup PROPERTIES RUN_SERIAL TRUE)
