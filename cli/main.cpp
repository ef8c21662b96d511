#include <iostream>

#include "harness/cli.hpp"

int main(int argc, char** argv) { return gpuprobe::run_cli(argc, argv, std::cout, std::cerr); }
